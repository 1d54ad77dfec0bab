import CWebP
import Foundation
import TroveCore

/// The ICC profile a WebP file carries in its ICCP chunk (extended format), read through libwebp's demuxer.
enum WebPColorProfile {
    /// The file's colour description: its ICC profile, or nil when it has none (or the container cannot be
    /// demuxed, which the decode itself then reports).
    static func description(in bytes: UnsafeRawBufferPointer) -> ColorDescription? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var data = WebPData(bytes: base, size: bytes.count)
        guard let demux = WebPDemux(&data) else { return nil }
        defer { WebPDemuxDelete(demux) }
        guard WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS) & ICCP_FLAG.rawValue != 0 else { return nil }
        var iterator = WebPChunkIterator()
        guard WebPDemuxGetChunk(demux, "ICCP", 1, &iterator) != 0 else { return nil }
        defer { WebPDemuxReleaseChunkIterator(&iterator) }
        guard let chunk = iterator.chunk.bytes, iterator.chunk.size > 0 else { return nil }
        return ColorDescription(iccProfile: [UInt8](UnsafeBufferPointer(start: chunk, count: iterator.chunk.size)))
    }
}

extension WebPColorProfile {
    /// `webp` (a still or an animation) with `profile` in an ICCP chunk, through libwebp's muxer, which
    /// moves a simple file into the extended format and sets the VP8X ICC flag.
    static func embedding(_ profile: [UInt8], in webp: Data) throws -> Data {
        try webp.withUnsafeBytes { file in
            try profile.withUnsafeBufferPointer { icc in
                guard let fileBase = file.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    let iccBase = icc.baseAddress
                else { throw WebPErrors.encoding("no bytes to embed a colour profile in") }
                var bitstream = WebPData(bytes: fileBase, size: file.count)
                guard let mux = WebPMuxCreate(&bitstream, 0) else {
                    throw WebPErrors.encoding("libwebp's muxer could not read the encoded file")
                }
                defer { WebPMuxDelete(mux) }
                var chunk = WebPData(bytes: iccBase, size: icc.count)
                guard WebPMuxSetChunk(mux, "ICCP", &chunk, 0) == WEBP_MUX_OK else {
                    throw WebPErrors.encoding("libwebp's muxer refused the \(icc.count)-byte ICC profile")
                }
                var output = WebPData()
                WebPDataInit(&output)
                defer { WebPDataClear(&output) }
                guard WebPMuxAssemble(mux, &output) == WEBP_MUX_OK, let bytes = output.bytes else {
                    throw WebPErrors.encoding("libwebp's muxer could not write the file with its ICC profile")
                }
                return Data(bytes: bytes, count: output.size)
            }
        }
    }
}
