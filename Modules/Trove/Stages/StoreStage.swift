import TroveCore
import TroveMemoryCache

/// Store: a processed result on disk under its processed key (unless the request skips it, is memory-only,
/// or its source was no-store), and every response in memory for as long as its bytes are fresh. All
/// through the cache writer.
struct StoreStage: PipelineStage {
    let cacheWriter: CacheWriter
    let memoryCache: MemoryCache<String, ImageResponse>

    /// Stores a result just made from `raw`, then remembers it.
    func run(_ input: (response: ImageResponse, request: ImageRequest, raw: RawResult)) async -> ImageResponse {
        let (response, request, raw) = input
        let key = response.cacheKey
        if key.processed != key.raw, !request.options.contains(.skipsProcessedDiskStore),
            request.cachePolicy != .memoryOnly, raw.storable
        {
            await cacheWriter.storeProcessed(
                response.data, forKey: key.processed, expires: raw.expires, selecting: raw.selecting)
        }
        return remember(response, raw)
    }

    /// Marks the response stale when its bytes were, and keeps it in memory for as long as they are fresh
    /// (never for no-store).
    func remember(_ response: ImageResponse, _ raw: RawResult) -> ImageResponse {
        var response = response
        response.isStale = raw.isStale
        response.selecting = raw.selecting
        cacheWriter.remember(
            response, in: memoryCache, forKey: response.cacheKey.processed,
            cost: response.memoryCost, raw)
        return response
    }
}
