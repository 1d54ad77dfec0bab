import TroveCore
import TroveMemoryCache

/// Store: a processed result on disk under its processed key (unless the request skips it, is memory-only,
/// or its source was no-store), in the shared tier when it was made under the fleet's lease (behind the
/// answer, the lease given back after), and every response in memory for as long as its bytes are fresh
/// (but one for a caller that reads only its bytes). All through the cache writer.
struct StoreStage: PipelineStage {
    /// A result made for the fleet: it goes to the shared tier, and `lease` (held while it was made, nil when
    /// the tier could not give one) is given back once it is there.
    struct Sharing: Sendable {
        let lease: SharedTierLease?
    }

    let cacheWriter: CacheWriter
    let memoryCache: MemoryCache<String, ImageResponse>

    /// Stores a result just made from `raw`, then remembers it.
    func run(
        _ input: (response: ImageResponse, request: ImageRequest, raw: RawResult, sharing: Sharing?)
    ) async -> ImageResponse {
        let (response, request, raw, sharing) = input
        let key = response.cacheKey
        let kept = request.keepsProcessedResult(under: key) && request.cachePolicy != .memoryOnly && raw.storable
        if kept {
            await cacheWriter.storeProcessed(
                response.data, forKey: key.processed, expires: raw.expires, selecting: raw.selecting)
        }
        if let sharing {
            cacheWriter.shareProcessed(
                kept ? response.data : nil, forKey: key.processed, expires: raw.expires, selecting: raw.selecting,
                releasing: sharing.lease)
        }
        // A response for a caller that reads only its bytes may carry an empty image: memory never keeps it.
        return remember(response, raw, inMemory: !request.options.contains(.needsOnlyData))
    }

    /// Marks the response stale when its bytes were, and keeps it in memory for as long as they are fresh
    /// (never for no-store, nor when `inMemory` is false).
    func remember(_ response: ImageResponse, _ raw: RawResult, inMemory: Bool = true) -> ImageResponse {
        var response = response
        response.isStale = raw.isStale
        response.selecting = raw.selecting
        if inMemory {
            cacheWriter.remember(
                response, in: memoryCache, forKey: response.cacheKey.processed, cost: response.memoryCost, raw)
        }
        return response
    }
}
