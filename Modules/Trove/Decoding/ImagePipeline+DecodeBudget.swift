import Foundation
import TroveCore

extension ImagePipeline {
    /// Reserves, in the decode memory budget (when the configuration sets one), what decoding the source
    /// `probe` describes for `transforms` will hold, waiting for room first; the reservation is named by `key`
    /// (the processed result's), so requests sharing one decode share one reservation. Nil without a budget,
    /// or when the header is damaged or over the decoding limits: the decode reports those at once, before it
    /// allocates anything. The wait ends at the task's `DecodeMemoryBudget.waitDeadline`, else after the
    /// configuration's `requestDeadline`.
    func reserveDecodeMemory(
        for probe: SourceProbe, key: String, transforms: [any ImageTransformer]
    ) async throws -> DecodeReservation? {
        guard let budget = decodeBudget, probe.readsHeader else { return nil }
        let decoder = probe.decoder
        let info = probe.header
        // A source over the decoding limits is refused by its decoder with the limit's own error. An animation
        // longer than `maxFrames` is not: its decoder keeps the first frames, and only those are counted.
        if let info {
            let limits = configuration.decodingLimits
            do {
                try limits.check(width: info.width, height: info.height)
                if info.frameCount > 1 {
                    try limits.check(frames: info.frameCount, width: info.width, height: info.height)
                }
            } catch {
                return nil
            }
        }
        let footprint = DecodeFootprint(
            info: info, transforms: transforms,
            streams: decoder is any RowStreamingImageDecoder && configuration.delegate == nil,
            reducingGap: max(configuration.shrinkOnLoadReducingGap, decoder.leastReducingGap),
            limits: configuration.decodingLimits,
            streamingBufferBytes: probe.streamingBufferBytes)
        // Without a header only the decoder's own cap is known: at most the whole budget, so it runs alone.
        let bytes = footprint.route == .unknownHeader ? min(footprint.bytes, budget.capacity) : footprint.bytes
        let deadline = DecodeMemoryBudget.waitDeadline ?? .now + configuration.requestDeadline
        return try await budget.reserve(bytes, for: key, until: deadline)
    }
}
