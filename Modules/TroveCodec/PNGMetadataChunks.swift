import Foundation
import TroveCore
import TroveSupport

/// The metadata chunks of a PNG file Trove reads and writes beside the colour ones: eXIf (an EXIF block, looked
/// for before the image data, where the PNG specification places it) and the iTXt chunk whose keyword is
/// "XML:com.adobe.xmp" (an XMP packet, anywhere before IEND, compressed or not). A chunk whose CRC does not
/// match is left out.
enum PNGMetadataChunks {
    /// The iTXt chunk type.
    static let itxt: UInt32 = 0x6954_5874
    /// An inflated XMP packet larger than this is left out.
    static let maxPacketBytes = 16 << 20

    /// The EXIF block and the XMP packet in `data`; none of either when the file is not a PNG.
    static func metadata(in data: Data) -> EmbeddedMetadata {
        data.withUnsafeBytes { bytes in
            var metadata = EmbeddedMetadata()
            guard bytes.starts(with: PNGChunkReader.signature) else { return metadata }
            var offset = PNGChunkReader.signature.count
            var beforeImageData = true
            while offset + 12 <= bytes.count {
                let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).bigEndian)
                let type = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self).bigEndian
                let end = offset + 8 + length
                guard length <= Int(Int32.max), end + 4 <= bytes.count, type != PNGChunk.iend else { break }
                if type == PNGChunk.idat { beforeImageData = false }
                let wanted =
                    (type == PNGChunk.exif && beforeImageData && metadata.exif == nil)
                    || (type == itxt && metadata.xmp == nil)
                if wanted, checksumMatches(bytes, chunkAt: offset, end: end) {
                    let body = Array(bytes[(offset + 8)..<end])
                    if type == PNGChunk.exif {
                        metadata.exif = ExifBlock.tiff(inPayload: body)
                    } else {
                        metadata.xmp = xmpPacket(inITXt: body)
                    }
                }
                offset = end + 4
            }
            return metadata
        }
    }

    private static func checksumMatches(_ bytes: UnsafeRawBufferPointer, chunkAt offset: Int, end: Int) -> Bool {
        let stored = bytes.loadUnaligned(fromByteOffset: end, as: UInt32.self).bigEndian
        return stored == CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<end]))
    }

    /// The text of an iTXt chunk's data when its keyword is XMP's: keyword, NUL, compression flag and method,
    /// language tag, NUL, translated keyword, NUL, then the text (a zlib stream when the flag is 1).
    static func xmpPacket(inITXt body: [UInt8]) -> [UInt8]? {
        let keyword = Array(XMPRights.pngKeyword.utf8) + [0]
        guard body.starts(with: keyword), body.count >= keyword.count + 2 else { return nil }
        let compressed = body[keyword.count], method = body[keyword.count + 1]
        var at = keyword.count + 2
        for _ in 0..<2 {
            guard let nul = body[at...].firstIndex(of: 0) else { return nil }
            at = nul + 1
        }
        let text = Array(body[at...])
        switch (compressed, method) {
        case (0, _): return text
        case (1, 0): return inflate(text)
        default: return nil
        }
    }

    /// The inflated zlib stream, or nil when it is damaged or inflates past `maxPacketBytes`.
    private static func inflate(_ stream: [UInt8]) -> [UInt8]? {
        stream.withUnsafeBytes { input in
            var capacity = max(stream.count * 4, 4 << 10)
            while capacity <= maxPacketBytes * 4 {
                var produced = 0
                var full = false
                let output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                    let outcome = ZlibInflater.inflate(
                        input, ranges: [0..<input.count], into: UnsafeMutableRawBufferPointer(buffer))
                    switch outcome {
                    case .finished(let count): produced = count
                    case .outputFull: full = true
                    case .truncated, .corrupt: break
                    }
                    initialized = produced
                }
                if !full { return produced > 0 && produced <= maxPacketBytes ? output : nil }
                capacity *= 4
            }
            return nil
        }
    }

    /// An iTXt chunk's data holding `packet` uncompressed, as XMP's specification asks for PNG: XMP's
    /// keyword, no compression, no language tag or translated keyword.
    static func xmpChunk(_ packet: [UInt8]) -> Data {
        Data(Array(XMPRights.pngKeyword.utf8) + [0, 0, 0, 0, 0] + packet)
    }
}

extension PNGDecoder: EmbeddedMetadataReading {
    /// The eXIf chunk's EXIF block and the iTXt chunk's XMP packet.
    package func embeddedMetadata(_ data: Data) -> EmbeddedMetadata {
        PNGMetadataChunks.metadata(in: data)
    }
}
