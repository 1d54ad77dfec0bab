import CWebP
import Foundation
import TroveCore

/// The metadata chunks of a WebP file Trove writes and reads: ICCP (a kept ICC profile), EXIF and "XMP " (a
/// copyright notice), through libwebp's muxer (which sets VP8X's flags for them) and demuxer.
enum WebPMetadataChunks {
    /// The chunks an encoded `image` should carry: its kept profile, a kept orientation and its copyright notice
    /// (orientation and EXIF's fields in EXIF, all of the notice in XMP).
    static func chunks(for image: Image) -> [(fourCC: String, bytes: [UInt8])] {
        var chunks: [(String, [UInt8])] = []
        if let profile = image.colorDescription?.embeddableProfile(for: .rgba8) { chunks.append(("ICCP", profile)) }
        if let tiff = ExifBlock.tiff(for: image.copyright, orientation: image.orientation) {
            chunks.append(("EXIF", tiff))
        }
        if let notice = image.copyright, let packet = XMPRights.packet(for: notice) { chunks.append(("XMP ", packet)) }
        return chunks
    }

    /// `webp` (a still or an animation) with `chunks` set; the muxer moves a simple file into the extended
    /// format and sets VP8X's flags.
    static func setting(_ chunks: [(fourCC: String, bytes: [UInt8])], in webp: Data) throws -> Data {
        try webp.withUnsafeBytes { file in
            guard let fileBase = file.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                throw WebPErrors.encoding("no bytes to add metadata to")
            }
            var bitstream = WebPData(bytes: fileBase, size: file.count)
            guard let mux = WebPMuxCreate(&bitstream, 0) else {
                throw WebPErrors.encoding("libwebp's muxer could not read the encoded file")
            }
            defer { WebPMuxDelete(mux) }
            for chunk in chunks {
                // copy_data = 1: the muxer keeps its own copy, so each buffer need only live for its call.
                let status = chunk.bytes.withUnsafeBufferPointer { buffer in
                    var data = WebPData(bytes: buffer.baseAddress, size: buffer.count)
                    return WebPMuxSetChunk(mux, chunk.fourCC, &data, 1)
                }
                guard status == WEBP_MUX_OK else {
                    throw WebPErrors.encoding(
                        "libwebp's muxer refused the \(chunk.bytes.count)-byte \(chunk.fourCC) chunk")
                }
            }
            var output = WebPData()
            WebPDataInit(&output)
            defer { WebPDataClear(&output) }
            guard WebPMuxAssemble(mux, &output) == WEBP_MUX_OK, let bytes = output.bytes else {
                throw WebPErrors.encoding("libwebp's muxer could not write the file with its metadata")
            }
            return Data(bytes: bytes, count: output.size)
        }
    }

    /// The TIFF structure in the file's EXIF chunk (some writers put "Exif\0\0" before it), or nil.
    static func exif(in webp: Data) -> [UInt8]? {
        chunks(["EXIF"], in: webp)["EXIF"].flatMap(ExifBlock.tiff(inPayload:))
    }

    /// The EXIF chunk's TIFF structure and the "XMP " chunk's packet.
    static func metadata(in webp: Data) -> EmbeddedMetadata {
        let found = chunks(["EXIF", "XMP "], in: webp)
        return EmbeddedMetadata(exif: found["EXIF"].flatMap(ExifBlock.tiff(inPayload:)), xmp: found["XMP "])
    }

    /// The first chunk of each of `fourCCs` the demuxer finds, by four-character code; empty for a file it
    /// cannot read.
    private static func chunks(_ fourCCs: [String], in webp: Data) -> [String: [UInt8]] {
        webp.withUnsafeBytes { bytes -> [String: [UInt8]] in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return [:] }
            var data = WebPData(bytes: base, size: bytes.count)
            guard let demux = WebPDemux(&data) else { return [:] }
            defer { WebPDemuxDelete(demux) }
            var found: [String: [UInt8]] = [:]
            for fourCC in fourCCs {
                var iterator = WebPChunkIterator()
                guard WebPDemuxGetChunk(demux, fourCC, 1, &iterator) != 0 else { continue }
                defer { WebPDemuxReleaseChunkIterator(&iterator) }
                guard let chunk = iterator.chunk.bytes, iterator.chunk.size > 0 else { continue }
                found[fourCC] = [UInt8](UnsafeBufferPointer(start: chunk, count: iterator.chunk.size))
            }
            return found
        }
    }
}
