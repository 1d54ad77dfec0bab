import Foundation
import Logging
import TroveCore
import TroveDiskCache
import TroveFetcher
import TroveMemoryCache

/// Stage 3, the original bytes on disk: a fresh entry answers; a stale one is revalidated (stale-if-error:
/// delivered marked stale when the origin fails transiently); a miss passes on to the fetch
/// (`FetchCoalescingStage`). `cacheOnly` never passes on.
package struct OriginalDiskStage: Sendable {
    let parts: PipelineParts
    /// Where a miss, or a stale entry's revalidation, goes.
    let next: FetchCoalescingStage

    /// Disk first (unless reloading), then the network (unless cache-only). A fresh entry is used as is; a
    /// stale one is revalidated (or fetched again when it has no validators), and delivered marked stale if
    /// the origin fails for a transient reason. Offline (`cacheOnly`), whatever is cached is delivered.
    func load(_ request: RawRequest) async throws -> RawResult {
        guard request.policy != .reloadIgnoringCache,
            let entry = await parts.cached(
                request.key, includingStale: true, for: parts.sentHeaders(request.headers))
        else {
            if request.policy == .cacheOnly { throw TroveError.notCached(key: request.key) }
            return try await next.fetch(request)
        }
        let fresh = parts.freshness.isFresh(entry, maxAge: request.maxAge)
        if fresh || request.policy == .cacheOnly { return RawResult(entry, isStale: !fresh) }
        return try await revalidating(entry, for: request)
    }

    /// A cached entry brought up to date: revalidated with its validators (a 304 keeps its bytes, fresh
    /// again), fetched whole when it has none, and delivered marked stale when the origin fails transiently
    /// within the staleness bound (never a must-revalidate entry).
    func revalidating(_ entry: DiskEntry, for request: RawRequest) async throws -> RawResult {
        try await deliveringStaleOnFailure(entry, for: request) {
            switch try await next.revalidate(request, entry: entry) {
            case let .notModified(metadata)?:
                var updated = entry
                updated.metadata = metadata
                return RawResult(updated)
            case let .modified(result)?: return result
            case nil: return try await next.fetch(request)
            }
        }
    }

    /// Runs `work` (a revalidation or fetch of a cached entry); if it fails for a transient reason while the
    /// entry is within the staleness bound, delivers the entry marked stale instead of the error. A stale
    /// must-revalidate entry is never delivered so: the origin's error is thrown.
    private func deliveringStaleOnFailure(
        _ entry: DiskEntry, for request: RawRequest,
        _ work: () async throws -> RawResult
    ) async throws -> RawResult {
        do {
            return try await work()
        } catch  where FreshnessPolicy.isOriginFailure(error) && parts.freshness.isWithinStaleBound(entry) {
            guard parts.freshness.mayDeliverUnrevalidated(entry) else {
                parts.logger.info(
                    "origin failed; the cached copy is stale and must-revalidate, so it is not delivered",
                    metadata: ["url": "\(request.url)", "error": "\(error)"])
                throw error
            }
            parts.logger.warning(
                "origin failed; delivering the stale cached copy",
                metadata: ["url": "\(request.url)", "error": "\(error)"])
            parts.metrics.record(.staleDelivered)
            return RawResult(entry, isStale: true)
        }
    }
}
