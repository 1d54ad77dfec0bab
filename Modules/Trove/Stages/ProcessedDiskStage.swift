import TroveCore
import TroveDiskCache

/// The processed result on disk: a fresh stored result answers (a later process decodes the small result,
/// not the original), or the request passes on (nil). Requests without transforms (`processed == raw`) and
/// those that skip the processed store always pass on.
struct ProcessedDiskStage: PipelineStage {
    let disk: DiskReader
    let freshness: FreshnessPolicy
    let headers: SentHeaders

    func run(_ input: (request: ImageRequest, key: CacheKey)) async -> DiskEntry? {
        let (request, key) = input
        guard request.keepsProcessedResult(under: key),
            let stored = await disk.cached(key.processed, for: headers(request.headers)),
            freshness.isFresh(stored, maxAge: request.maxAge)
        else { return nil }
        return stored
    }
}

extension ImageRequest {
    /// Whether its processed result is kept apart from the original (on disk, and in the shared tier when
    /// results are shared): it has transforms or encodes (`processed != raw`) and does not skip the store.
    func keepsProcessedResult(under key: CacheKey) -> Bool {
        key.processed != key.raw && !options.contains(.skipsProcessedDiskStore)
    }
}
