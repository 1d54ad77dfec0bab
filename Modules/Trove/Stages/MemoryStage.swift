import TroveCore
import TroveMemoryCache

/// Memory: answers a request from the pipeline's memory cache under its processed key (the data pipeline's
/// key), or passes it on (nil). `reload`, `refresh` and a request's own max age always pass on.
struct MemoryStage<Response: CachedResponse>: PipelineStage {
    let cache: MemoryCache<String, Response>
    let metrics: PipelineMetrics
    let headers: SentHeaders

    /// A hit for a policy that may read the cache, marked as coming from memory, with the tier's hit or miss
    /// counted. A response that varied answers only a request whose headers match it.
    func run(
        _ lookup: (key: String, policy: CachePolicy, maxAge: Duration?, headers: [String: String])
    ) -> Response? {
        // A request's own max age is judged against the disk entry's date, which memory does not keep.
        guard lookup.policy != .reloadIgnoringCache, lookup.policy != .refresh, lookup.maxAge == nil else {
            return nil
        }
        guard var hit = cache.value(forKey: lookup.key),
            hit.selecting.isEmpty || Vary.matches(hit.selecting, headers(lookup.headers))
        else {
            metrics.record(.miss(.memory))
            return nil
        }
        metrics.record(.hit(.memory))
        hit.source = .memory
        return hit
    }
}
