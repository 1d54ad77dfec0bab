import Logging
import TroveCore
import TroveDiskCache

/// How the stages read the local disk: the entry that suits a request's headers, every read counted as a
/// hit or a miss, and a disk that cannot be read taken as a miss, not a failure (the network can still
/// serve the request).
struct DiskReader: Sendable {
    /// Nil when the configuration has no cache directory: every read misses.
    let diskCache: DiskCache?
    let metrics: PipelineMetrics
    let logger: Logger

    /// The cached response for a key that suits a request sending `headers`, or nil. A variant index (the
    /// response varies) leads to the variant these headers select; a response stored with selecting fields
    /// answers only a request that matches them (RFC 9111 §4.1).
    func cached(_ key: String, includingStale: Bool = false, for headers: [String: String]) async -> DiskEntry? {
        guard diskCache != nil else { return nil }
        var entry = await read(key, includingStale: includingStale)
        if let names = entry?.metadata.variantNames {
            let variantKey = CacheKey.variant(of: key, selecting: Vary.selecting(names, in: headers))
            entry = await read(variantKey, includingStale: includingStale)
        }
        if let selecting = entry?.metadata.selecting, !selecting.isEmpty, !Vary.matches(selecting, headers) {
            entry = nil
        }
        metrics.record(entry == nil ? .miss(.disk) : .hit(.disk))
        return entry
    }

    private func read(_ key: String, includingStale: Bool) async -> DiskEntry? {
        guard let diskCache else { return nil }
        do {
            return try await diskCache.entry(forKey: key, includingStale: includingStale)
        } catch {
            logger.warning("disk cache read failed", metadata: ["key": .redacted("\(key)"), "error": .redacted(error)])
            return nil
        }
    }
}
