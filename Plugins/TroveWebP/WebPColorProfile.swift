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
        let profile = [UInt8](UnsafeBufferPointer(start: chunk, count: iterator.chunk.size))
        return ColorDescription(iccProfile: profile).forColorSamples()
    }
}
