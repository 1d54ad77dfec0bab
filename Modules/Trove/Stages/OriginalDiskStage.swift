import TroveCore
import TroveDiskCache

/// The original bytes on disk: a fresh entry answers, and so does any entry for `cacheOnly`; a stale one is
/// handed back to be revalidated; otherwise the request passes on to the fetch. `reloadIgnoringCache` never
/// reads it; `cacheOnly` never passes on.
struct OriginalDiskStage: PipelineStage {
    /// What the disk had for a request.
    enum Found: Sendable {
        case answer(RawResult)
        /// Past its freshness: to be revalidated (or fetched again) before use.
        case stale(DiskEntry)
        case nothing
    }

    let disk: DiskReader
    let freshness: FreshnessPolicy
    let headers: SentHeaders

    func run(_ request: RawRequest) async throws -> Found {
        guard request.policy != .reloadIgnoringCache,
            let entry = await disk.cached(request.key, includingStale: true, for: headers(request.headers))
        else {
            if request.policy == .cacheOnly { throw TroveError.notCached(key: request.key) }
            return .nothing
        }
        let fresh = freshness.isFresh(entry, maxAge: request.maxAge)
        // Offline, whatever is cached is delivered.
        if fresh || request.policy == .cacheOnly { return .answer(RawResult(entry, isStale: !fresh)) }
        return .stale(entry)
    }
}
