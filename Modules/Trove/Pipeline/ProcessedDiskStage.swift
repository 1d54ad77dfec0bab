import TroveCore
import TroveDiskCache

/// Stage 2, the processed result on disk: a fresh stored result answers (a later process decodes the small
/// result, not the original), or the request passes on to the original. Requests without transforms
/// (`processed == raw`) and those that skip the processed store always pass on.
package struct ProcessedDiskStage: Sendable {
    let parts: PipelineParts

    /// The fresh stored result for the request, or nil to pass on.
    func entry(for request: ImageRequest, key: CacheKey) async -> DiskEntry? {
        guard key.processed != key.raw, !request.options.contains(.skipsProcessedDiskStore),
            let stored = await parts.cached(key.processed, for: parts.sentHeaders(request.headers)),
            parts.freshness.isFresh(stored, maxAge: request.maxAge)
        else { return nil }
        return stored
    }
}
