import Foundation
import Logging
import TroveCore
import TroveDiskCache
import TroveFetcher
import TroveMemoryCache

/// Stage 1, memory: answers a request from the pipeline's memory cache under its processed key (the data
/// pipeline's key), or passes it on. `reload`, `refresh` and a request's own max age always pass on.
package struct MemoryStage: Sendable {
    let parts: PipelineParts

    /// A memory hit for a policy that may read the cache, marked as coming from memory, with the tier's
    /// hit or miss counted. `reload` and `refresh` never answer from memory here.
    /// A response that varied answers only a request whose `headers` (asked for only then) match it.
    func hit<Response: CachedResponse>(
        _ cache: MemoryCache<String, Response>, key: String,
        policy: CachePolicy, maxAge: Duration? = nil, headers: () -> [String: String]
    ) -> Response? {
        // A request's own max age is judged against the disk entry's date, which memory does not keep.
        guard policy != .reloadIgnoringCache, policy != .refresh, maxAge == nil else { return nil }
        guard var hit = cache.value(forKey: key), hit.selecting.isEmpty || Vary.matches(hit.selecting, headers())
        else {
            parts.metrics.record(.miss(.memory))
            return nil
        }
        parts.metrics.record(.hit(.memory))
        hit.source = .memory
        return hit
    }
}
