import TroveCore
import TroveDiskCache

/// The original bytes on disk: a fresh entry answers (or one the request's own directives accept), and so
/// does any entry for `cacheOnly`; another is handed back to be revalidated; otherwise the request passes on
/// to the fetch. `reloadIgnoringCache` and a request's `no-store` never read it; `cacheOnly` never passes on,
/// nor does `only-if-cached` (which takes no entry its other directives refuse).
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
        guard request.policy != .reloadIgnoringCache, !request.asked.noStore,
            let entry = await disk.cached(request.key, includingStale: true, for: headers(request.headers))
        else {
            if request.policy == .cacheOnly || request.asked.onlyIfCached {
                throw TroveError.notCached(key: request.key)
            }
            return .nothing
        }
        let fresh = freshness.isFresh(entry, maxAge: request.maxAge)
        // Offline, whatever is cached is delivered.
        if request.policy == .cacheOnly || freshness.mayAnswer(entry, maxAge: request.maxAge, asked: request.asked) {
            return .answer(RawResult(entry, isStale: !fresh))
        }
        if request.asked.onlyIfCached { throw TroveError.notCached(key: request.key) }
        return .stale(entry)
    }
}
