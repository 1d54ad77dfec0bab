import Foundation
import TroveCore
import TroveDiskCache
import TroveMemoryCache

/// Loads images: memory, then disk, then the network, with duplicate work coalesced at the raw
/// (fetched bytes) and processed (transformed result) levels. Composed from a registry and a
/// configuration; safe to share across tasks.
public final class ImagePipeline: Sendable {
    public let configuration: PipelineConfiguration
    public let registry: PluginRegistry
    public let memoryCache: MemoryCache<String, ImageResponse>
    /// Nil when the configuration has no cache directory.
    public let diskCache: DiskCache?

    private let rawLoads = TaskCoalescer<RawResult>()
    private let processedLoads = TaskCoalescer<ImageResponse>()

    /// Fetched bytes and where they came from.
    private struct RawResult: Sendable {
        let data: Data
        let source: ResultSource
    }

    /// Builds the pipeline; throws `unknownPlugin` (listing the known names) for a name the registry lacks.
    public init(registry: PluginRegistry = .standard, configuration: PipelineConfiguration = .init()) throws {
        self.registry = registry
        self.configuration = configuration
        memoryCache = MemoryCache(
            configuration: MemoryCacheConfiguration(costLimit: configuration.memoryCostLimit,
                                                    countLimit: configuration.memoryCountLimit),
            evictionPolicy: try registry.evictionPolicy(named: configuration.memoryEviction))
        let hasher = try registry.hasher(named: configuration.hasher)
        let diskEviction = try registry.evictionPolicy(named: configuration.diskEviction)
        let compressor = try registry.compressor(named: configuration.compressor)
        if let directory = configuration.cacheDirectory {
            var disk = DiskCacheConfiguration()
            disk.byteLimit = configuration.diskByteLimit
            disk.countLimit = configuration.diskCountLimit
            disk.maxAge = configuration.diskMaxAge
            disk.compressionLevel = configuration.compressionLevel
            diskCache = try DiskCache(
                directory: directory, configuration: disk, hasher: hasher, compressor: compressor,
                knownCompressors: registry.names(of: .compressor).compactMap { try? registry.compressor(named: $0) },
                evictionPolicy: diskEviction)
        } else {
            diskCache = nil
        }
    }

    /// Loads one image through the caches and the network.
    public func image(for request: ImageRequest) async throws -> ImageResponse {
        let key = request.cacheKey
        if request.cachePolicy != .reloadIgnoringCache, let hit = memoryCache.value(forKey: key.processed) {
            var response = hit
            response.source = .memory
            return response
        }
        return try await processedLoads.value(forKey: key.processed) {
            try await self.loadProcessed(request, key: key)
        }
    }

    /// Convenience for a plain URL with optional transforms.
    public func image(for url: URL, transforms: [any ImageTransformer] = []) async throws -> ImageResponse {
        try await image(for: ImageRequest(url: url, transforms: transforms))
    }

    // MARK: - Flow

    private func loadProcessed(_ request: ImageRequest, key: CacheKey) async throws -> ImageResponse {
        let isProcessed = key.processed != key.raw
        let readsCache = request.cachePolicy != .reloadIgnoringCache

        if readsCache, isProcessed, request.options.contains(.storeProcessedOnDisk),
           let stored = try await diskCache?.data(forKey: key.processed) {
            let image = try decode(stored, url: request.url)
            return remember(ImageResponse(image: image, data: stored, source: .disk, cacheKey: key), request: request)
        }

        let raw = try await loadRaw(request, key: key)
        let decoded: Image
        do {
            decoded = try decode(raw.data, url: request.url)
        } catch {
            // Bytes that are not an image must not stay cached as if they were.
            if raw.source == .network { _ = try? await diskCache?.removeEntry(forKey: key.raw) }
            throw error
        }
        try Task.checkCancellation()

        var image = decoded
        for transformer in request.transforms {
            image = try transformer.transform(image)
        }
        let data: Data
        if !isProcessed {
            data = raw.data
        } else {
            let encoder = try registry.encoder(for: request.outputFormat ?? .png)
            data = try encoder.encode(image, options: configuration.encodingOptions)
            if request.options.contains(.storeProcessedOnDisk), request.cachePolicy != .memoryOnly {
                try await diskCache?.store(data, forKey: key.processed)
            }
        }
        return remember(ImageResponse(image: image, data: data, source: raw.source, cacheKey: key), request: request)
    }

    private func loadRaw(_ request: ImageRequest, key: CacheKey) async throws -> RawResult {
        if request.cachePolicy != .reloadIgnoringCache, let data = try await diskCache?.data(forKey: key.raw) {
            return RawResult(data: data, source: .disk)
        }
        if request.cachePolicy == .cacheOnly {
            throw TroveError.notCached(key: key.raw)
        }
        return try await rawLoads.value(forKey: key.raw) {
            try await self.fetch(request, key: key)
        }
    }

    private func fetch(_ request: ImageRequest, key: CacheKey) async throws -> RawResult {
        let fetcher = try registry.fetcher(for: request.url)
        let fetchRequest = FetchRequest(
            url: request.url,
            headers: configuration.headers.merging(request.headers) { _, own in own },
            timeout: configuration.fetchTimeout,
            maxBytes: configuration.maxBytes)
        guard case let .data(data, metadata) = try await fetcher.fetch(fetchRequest) else {
            throw TroveError.connectionFailed(url: request.url.absoluteString,
                                              reason: "got 304 Not Modified to a request without validators")
        }
        if request.cachePolicy != .memoryOnly, let diskCache {
            try await diskCache.store(data, forKey: key.raw, metadata: DiskEntryMetadata(
                validators: metadata.validators, contentType: metadata.contentType))
        }
        return RawResult(data: data, source: .network)
    }

    private func decode(_ data: Data, url: URL) throws -> Image {
        guard let decoder = registry.decoder(for: data) else {
            throw TroveError.unsupportedFormat(url: url.absoluteString, firstBytes: Array(data.prefix(8)))
        }
        return try decoder.decode(data, limits: configuration.decodingLimits)
    }

    private func remember(_ response: ImageResponse, request: ImageRequest) -> ImageResponse {
        memoryCache.setValue(response, forKey: response.cacheKey.processed,
                             cost: response.image.cost + response.data.count)
        return response
    }
}
