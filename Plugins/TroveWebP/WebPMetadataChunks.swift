import CWebP
import Foundation
import TroveCore

/// The metadata chunks of a WebP file Trove writes and reads: ICCP (a kept ICC profile) and EXIF (a
/// copyright notice), through libwebp's muxer and demuxer.
enum WebPMetadataChunks {
    /// The chunks an encoded `image` should carry: its kept profile and its copyright notice.
    static func chunks(for image: Image) -> [(fourCC: String, bytes: [UInt8])] {
        var chunks: [(String, [UInt8])] = []
        if let profile = image.colorDescription?.embeddableProfile(for: .rgba8) { chunks.append(("ICCP", profile)) }
        if let notice = image.copyright, let tiff = ExifBlock.tiff(for: notice) { chunks.append(("EXIF", tiff)) }
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
        webp.withUnsafeBytes { bytes -> [UInt8]? in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            var data = WebPData(bytes: base, size: bytes.count)
            guard let demux = WebPDemux(&data) else { return nil }
            defer { WebPDemuxDelete(demux) }
            var iterator = WebPChunkIterator()
            guard WebPDemuxGetChunk(demux, "EXIF", 1, &iterator) != 0 else { return nil }
            defer { WebPDemuxReleaseChunkIterator(&iterator) }
            guard let chunk = iterator.chunk.bytes, iterator.chunk.size > 0 else { return nil }
            return ExifBlock.tiff(inPayload: [UInt8](UnsafeBufferPointer(start: chunk, count: iterator.chunk.size)))
        }
    }
}
