import Foundation
import TroveCore
import TroveSupport

/// The metadata chunks of a PNG file Trove reads and writes beside the colour ones: eXIf (an EXIF block, looked
/// for before the image data, where the PNG specification places it; without one, ImageMagick's
/// `PNGRawProfile` there) and the iTXt chunk whose keyword is "XML:com.adobe.xmp" (an XMP packet, anywhere
/// before IEND, compressed or not). A chunk whose CRC does not match is left out.
enum PNGMetadataChunks {
    /// The iTXt chunk type.
    static let itxt = PNGTextChunks.internationalText
    /// An inflated XMP packet larger than this is left out.
    static let maxPacketBytes = 16 << 20

    /// The EXIF block and the XMP packet in `data`; none of either when the file is not a PNG.
    static func metadata(in data: Data) -> EmbeddedMetadata {
        data.withUnsafeBytes { bytes in
            var metadata = EmbeddedMetadata()
            metadata.exif = exif(in: bytes)
            forEachChunk(in: bytes) { type, offset, end in
                guard type == itxt, checksumMatches(bytes, chunkAt: offset, end: end) else { return true }
                metadata.xmp = PNGTextChunks.text(
                    ofChunk: type, UnsafeRawBufferPointer(rebasing: bytes[(offset + 8)..<end]),
                    keyword: XMPRights.pngKeyword, limit: maxPacketBytes)
                return metadata.xmp == nil
            }
            return metadata
        }
    }

    /// The EXIF block (a TIFF structure) of the first eXIf chunk before the image data whose CRC holds and
    /// which starts with a TIFF header, or else of the first raw profile there (`PNGRawProfile`) that is whole
    /// and well formed; nil without either, or when the file is not a PNG. Only the first text chunk with each
    /// of the raw profile's keywords is read, and only when no longer than `PNGRawProfile.maxChunkBytes`: at
    /// most two are inflated, each no further than `PNGRawProfile.maxTextBytes`.
    static func exif(in bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        var rawProfile: [UInt8]?
        var keywordsSeen = Set<Int>()
        var exif: [UInt8]?
        forEachChunk(in: bytes) { type, offset, end in
            guard type != PNGChunk.idat else { return false }
            let data = UnsafeRawBufferPointer(rebasing: bytes[(offset + 8)..<end])
            if type == PNGChunk.exif {
                guard checksumMatches(bytes, chunkAt: offset, end: end) else { return true }
                exif = ExifBlock.tiff(inPayload: Array(data))
                return exif == nil
            }
            // A text chunk's keyword and length are read before its CRC is computed: most are other texts.
            let isText = type == PNGTextChunks.text || type == PNGTextChunks.compressedText || type == itxt
            guard isText, rawProfile == nil, let keyword = PNGRawProfile.keyword(of: data),
                keywordsSeen.insert(keyword).inserted, data.count <= PNGRawProfile.maxChunkBytes,
                checksumMatches(bytes, chunkAt: offset, end: end)
            else { return true }
            rawProfile = PNGRawProfile.exif(inChunk: type, data, keyword: keyword).flatMap {
                ExifBlock.tiff(inPayload: $0)
            }
            return true
        }
        return exif ?? rawProfile
    }

    /// Calls `body(type, offset, end)` for each chunk after the signature (`end` is where its data ends and
    /// its CRC starts) until IEND, a chunk that runs past the file, or `body` returning false.
    private static func forEachChunk(
        in bytes: UnsafeRawBufferPointer, _ body: (_ type: UInt32, _ offset: Int, _ end: Int) -> Bool
    ) {
        guard bytes.starts(with: PNGChunkReader.signature) else { return }
        var offset = PNGChunkReader.signature.count
        while offset + 12 <= bytes.count {
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).bigEndian)
            let type = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self).bigEndian
            let end = offset + 8 + length
            guard length <= Int(Int32.max), end + 4 <= bytes.count, type != PNGChunk.iend,
                body(type, offset, end)
            else { return }
            offset = end + 4
        }
    }

    private static func checksumMatches(_ bytes: UnsafeRawBufferPointer, chunkAt offset: Int, end: Int) -> Bool {
        let stored = bytes.loadUnaligned(fromByteOffset: end, as: UInt32.self).bigEndian
        return stored == CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<end]))
    }

    /// An iTXt chunk's data holding `packet` uncompressed, as XMP's specification asks for PNG: XMP's
    /// keyword, no compression, no language tag or translated keyword.
    static func xmpChunk(_ packet: [UInt8]) -> Data {
        Data(Array(XMPRights.pngKeyword.utf8) + [0, 0, 0, 0, 0] + packet)
    }
}

extension PNGDecoder: EmbeddedMetadataReading {
    /// The EXIF block (the eXIf chunk's, or ImageMagick's raw profile's) and the iTXt chunk's XMP packet.
    package func embeddedMetadata(_ data: Data) -> EmbeddedMetadata {
        PNGMetadataChunks.metadata(in: data)
    }
}
