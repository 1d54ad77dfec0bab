import Foundation
import TroveCore
import TroveDiskCache
import TroveFetcher
import TroveMemoryCache
import TroveTransformers

/// Loads images: memory, then disk, then the network, with duplicate work coalesced at the raw
/// (fetched bytes) and processed (transformed result) levels. Composed from a registry and a
/// configuration; safe to share across tasks.
public final class ImagePipeline: Sendable {
    /// The configuration the pipeline was built from.
    public let configuration: PipelineConfiguration
    /// The plugins it was composed from: fetchers, decoders, encoders, transformers, hashers, policies, compressors.
    public let registry: PluginRegistry
    /// Responses by processed cache key, costed by decoded image cost plus data bytes, kept while fresh.
    public let memoryCache: MemoryCache<String, ImageResponse>
    /// Nil when the configuration has no cache directory.
    public var diskCache: DiskCache? { loader.diskCache }
    /// The queue of network fetches (running and queued counts).
    package var fetchScheduler: FetchScheduler { loader.scheduler }
    /// The fleet's shared tier; nil when the configuration names none.
    public var sharedTier: (any SharedCacheTier)? { loader.shared?.tier }
    /// What the shared tier has done and where its circuit breaker stands; nil without a shared tier.
    public var sharedTierStatus: SharedTierStatus? { loader.shared?.status }

    let loader: RawDataLoader
    /// This pipeline's part of every processed key (`CacheKey.pipelineSettings`); nil with the defaults.
    private let keySettings: String?
    /// What `cancel(url:)` and `cancelAll()` reach.
    let inFlight = InFlightRequests()
    private let processedLoads = TaskCoalescer<WorkKey, ImageResponse>()
    /// Brings decoded images to sRGB; nil when the registry has no colour converter.
    private let colorStage: ColorStage?

    /// Builds the pipeline; throws `unknownPlugin` (listing the known names) for a name the registry lacks,
    /// and `invalidConfiguration` for TLS options that cannot work (`TLSOptions.validate()`), before any
    /// cache directory is made. The default configuration keeps a disk cache in
    /// `PipelineConfiguration.defaultCacheDirectory`; pass `.memoryOnly` for none.
    public init(registry: PluginRegistry = .standard, configuration: PipelineConfiguration = .init()) throws {
        try configuration.tls.validate()
        self.registry = registry
        self.configuration = configuration
        keySettings = Self.keySettings(configuration, colorConverter: registry.colorConverter)
        colorStage = registry.colorConverter.map { ColorStage(converter: $0, logger: configuration.logger) }
        memoryCache = try MemoryCache(
            configuration: configuration.memory,
            evictionPolicy: registry.evictionPolicy(named: configuration.memoryEviction.rawValue))
        let diskCache = try configuration.makeDiskCache(registry: registry)
        loader = RawDataLoader(
            configuration: configuration, registry: registry, diskCache: diskCache,
            sharedTier: try configuration.makeSharedTier(registry: registry),
            accept: { data, url in
                // Bytes no decoder claims are not cached as if they were an image.
                _ = try Self.decoder(in: registry, for: data, url: url)
            })
    }

    /// Waits until every store queued for the disk cache has been written (or has failed, logged and counted
    /// in its stats): disk writes are write-behind, so a result is delivered before its entry is on disk.
    /// Call it before handing the cache directory to another process or pipeline, or before exiting.
    public func flush() async {
        await loader.diskCache?.flush()
    }

    /// Loads one image through the caches and the network; with `refresh`, returns the revalidated result.
    public func image(for request: ImageRequest) async throws -> ImageResponse {
        let key = cacheKey(for: request)
        if let hit = memoryHit(request, key: key) { return hit }
        return try await inFlight.run(url: request.url) {
            try await self.run(request, key: key, waiter: WaiterID.next(), emit: { _ in })
        }
    }

    /// The key this pipeline caches a request's results under: the request's own parts, plus the settings of
    /// this pipeline that shape a processed result.
    public func cacheKey(for request: ImageRequest) -> CacheKey {
        CacheKey(request, pipelineSettings: keySettings)
    }

    /// The configuration's settings that change a processed result's bytes and that a request does not name:
    /// its default encoder settings and its shrink-on-load gap, each only when not the default, so pipelines
    /// on the defaults keep the keys they always had; and the colour converter, which changes the pixels.
    private static func keySettings(
        _ configuration: PipelineConfiguration, colorConverter: (any ColorConverter)?
    ) -> String? {
        var parts: [String] = []
        if let colorConverter { parts.append("color=\(colorConverter.name)") }
        if configuration.encodingOptions != EncodingOptions() {
            parts.append("encoding(\(configuration.encodingOptions.identifier))")
        }
        if configuration.shrinkOnLoadReducingGap != ShrinkOnLoad.defaultReducingGap {
            parts.append("gap=\(configuration.shrinkOnLoadReducingGap)")
        }
        return parts.isEmpty ? nil : parts.joined(separator: ",")
    }

    /// Convenience for a plain URL with optional transforms.
    public func image(for url: URL, transforms: [any ImageTransformer] = []) async throws -> ImageResponse {
        try await image(for: ImageRequest(url: url, transforms: transforms))
    }

    /// Cancels every request for `url` running now (callers of `image(for:)` and tasks): each ends
    /// with `TroveError.cancelled`; work shared with requests for other URLs carries on for them. Returns how
    /// many were cancelled.
    @discardableResult
    public func cancel(url: URL) -> Int {
        inFlight.cancel(url: url)
    }

    /// Cancels every request running now; returns how many.
    @discardableResult
    public func cancelAll() -> Int {
        inFlight.cancelAll()
    }

    /// Starts a request whose progress, cached and final results arrive as events.
    public func task(for request: ImageRequest) -> ImageTask {
        let waiter = WaiterID.next()
        let inFlight = self.inFlight
        let key = cacheKey(for: request)
        let task = ImageTask(
            run: { emit in
                defer { inFlight.remove(waiter) }
                if let hit = self.memoryHit(request, key: key) {
                    emit(.final(hit))
                    return hit
                }
                return try await self.run(request, key: key, waiter: waiter, emit: emit)
            },
            changePriority: { priority in
                self.loader.setPriority(priority, forKey: key.raw, waiter: waiter)
            })
        inFlight.add(waiter, url: request.url) { task.cancel() }
        return task
    }

    // MARK: - Flow

    private func memoryHit(_ request: ImageRequest, key: CacheKey) -> ImageResponse? {
        loader.memoryHit(
            memoryCache, key: key.processed, policy: request.cachePolicy,
            maxAge: request.maxAge)
    }

    private func run(
        _ request: ImageRequest, key: CacheKey, waiter: UInt64,
        emit: @escaping @Sendable (ImageEvent) -> Void
    ) async throws -> ImageResponse {
        var rawRequest = RawRequest(
            url: request.url, key: key.raw, policy: request.cachePolicy,
            retryFailed: request.options.contains(.retryFailed), headers: request.headers,
            priority: request.priority, waiter: waiter, progress: { emit(.progress($0)) },
            maxAge: request.maxAge)
        if request.options.contains(.deliversPreviews) {
            rawRequest.previews = previews(for: request, key: key, emit: emit)
        }
        let raw = rawRequest
        // Registered before joining processed work, so a caller that joins it still gets progress, previews
        // and a say in priority.
        loader.jobs.join(
            WorkKey(key.raw), waiter: waiter, priority: request.priority, progress: raw.progress,
            previews: raw.previews)
        defer { loader.jobs.leave(WorkKey(key.raw), waiter: waiter) }

        let response: ImageResponse
        switch request.cachePolicy {
        case .refresh:
            return try await refresh(request, key: key, raw: raw, emit: emit)
        case .reloadIgnoringCache:
            response = try await processedLoads.value(
                forKey: WorkKey(key.processed, .reload), onJoin: loader.recordJoin
            ) {
                try await self.process(request, key: key, try await self.loader.fetch(raw))
            }
        case .useCache, .cacheOnly, .memoryOnly:
            response = try await processedLoads.value(forKey: WorkKey(key.processed), onJoin: loader.recordJoin) {
                try await self.loadProcessed(request, key: key, raw: raw)
            }
        }
        emit(.final(response))
        return response
    }

    private func loadProcessed(_ request: ImageRequest, key: CacheKey, raw: RawRequest) async throws -> ImageResponse {
        if key.processed != key.raw, !request.options.contains(.skipsProcessedDiskStore),
            let stored = await loader.cached(key.processed),
            loader.isFresh(stored, maxAge: request.maxAge)
        {
            let image = try decode(stored.data, url: request.url)
            return remember(
                ImageResponse(
                    image: image, data: stored.data, format: image.sourceFormat, source: .disk,
                    cacheKey: key),
                RawResult(stored))
        }
        return try await process(request, key: key, try await loader.load(raw))
    }

    /// How this request's previews are made: by the progressive decoder for the body's format, within the
    /// pipeline's limits, with the request's transforms run on each before it is emitted.
    private func previews(
        for request: ImageRequest, key: CacheKey,
        emit: @escaping @Sendable (ImageEvent) -> Void
    ) -> PreviewRequest {
        let registry = registry
        let limits = configuration.decodingLimits
        return PreviewRequest(
            interval: configuration.previewInterval,
            makeDecoder: { data in
                (registry.decoder(for: data) as? any ProgressiveImageDecoder)?.makeIncrementalDecoder(limits: limits)
            },
            deliver: { image in
                var image = image
                do {
                    for transformer in request.transforms { image = try transformer.transform(image) }
                } catch {
                    return  // a transform that fails on a preview will say so on the final image
                }
                emit(
                    .preview(
                        ImageResponse(
                            image: image, data: Data(), format: image.sourceFormat, source: .network,
                            cacheKey: key)))
            })
    }

    /// refresh: the cached result at once, then a conditional fetch; a 200 delivers the new result too.
    private func refresh(
        _ request: ImageRequest, key: CacheKey, raw: RawRequest,
        emit: @escaping @Sendable (ImageEvent) -> Void
    ) async throws -> ImageResponse {
        let entry = await loader.cached(key.raw, includingStale: true)
        var cached = memoryCache.value(forKey: key.processed).map { hit -> ImageResponse in
            var hit = hit
            hit.source = .memory
            return hit
        }
        if cached == nil, let entry {
            cached = try? await process(request, key: key, RawResult(entry))
        }
        guard let cached else {
            let response = try await process(request, key: key, try await loader.fetch(raw))
            emit(.final(response))
            return response
        }
        // A stale must-revalidate copy is not shown before the origin has confirmed it.
        let mayDeliverCached = entry.map { loader.mayDeliverUnrevalidated($0) } ?? true
        if mayDeliverCached { emit(.cached(cached)) }

        let fresh: ImageResponse
        do {
            switch try await entry.asyncFlatMap({ try await loader.revalidate(raw, entry: $0) }) {
            case .notModified?:
                emit(.final(cached))
                return cached
            case let .modified(result)?:
                fresh = try await process(request, key: key, result)
            case nil:  // nothing to revalidate with: fetch it whole
                fresh = try await process(request, key: key, try await loader.fetch(raw))
            }
        } catch  where RawDataLoader.isOriginFailure(error) && mayDeliverCached {
            // The origin is down: what the cache had stands, marked stale.
            loader.logger.warning(
                "refresh failed; delivering the cached copy",
                metadata: ["url": "\(request.url)", "error": "\(error)"])
            var stale = cached
            stale.isStale = true
            emit(.final(stale))
            return stale
        }
        emit(.final(fresh))
        return fresh
    }

    /// Decodes, runs the delegate hook and the transforms, encodes when processed, and caches the result.
    private func process(_ request: ImageRequest, key: CacheKey, _ raw: RawResult) async throws -> ImageResponse {
        let decoded: Image
        var transforms = request.transforms
        do {
            (decoded, transforms) = try decode(raw.data, url: request.url, for: request.transforms)
        } catch {
            // Bytes that do not decode must not stay cached as if they were an image.
            if raw.source == .network {
                _ = try? await diskCache?.removeEntry(forKey: key.raw)
                // A memory-only request keeps its failure in the process: nothing of it reaches the disk.
                await loader.failures.record(
                    error, forKey: key.raw, persists: request.cachePolicy != .memoryOnly)
            }
            throw error
        }
        try Task.checkCancellation()

        var image = try configuration.delegate?.didDecode(decoded, for: request) ?? decoded
        if image.width != decoded.width || image.height != decoded.height {
            // The delegate changed the geometry the reduced plan was made for: run the transforms as asked.
            transforms = request.transforms
        }
        for transformer in transforms {
            image = try transformer.transform(image)
        }
        let data: Data
        let format: ImageFormat
        if key.processed == key.raw {
            data = raw.data
            format = decoded.sourceFormat
        } else {
            format = outputFormat(for: request, source: decoded.sourceFormat)
            data = try registry.encoder(for: format)
                .encode(image, options: request.encodingOptions ?? configuration.encodingOptions)
            if !request.options.contains(.skipsProcessedDiskStore), request.cachePolicy != .memoryOnly, raw.storable {
                _ = try? await diskCache?.store(
                    data, forKey: key.processed,
                    metadata: DiskEntryMetadata(expires: raw.expires))
            }
        }
        return remember(
            ImageResponse(image: image, data: data, format: format, source: raw.source, cacheKey: key),
            raw)
    }

    /// The format a processed result is encoded in: the request's, else the source's when asked and an
    /// encoder for it is registered, else PNG.
    private func outputFormat(for request: ImageRequest, source: ImageFormat) -> ImageFormat {
        if let format = request.outputFormat { return format }
        if request.options.contains(.encodesInSourceFormat), registry.encodableFormats.contains(source) {
            return source
        }
        return .png
    }

    private func decode(_ data: Data, url: URL) throws -> Image {
        try Self.decoder(in: registry, for: data, url: url).decode(data, limits: configuration.decodingLimits)
    }

    /// Decodes at a reduced size when the transforms start by shrinking (and the decoder can reduce), and
    /// returns the transforms to run on that image: the same output as from a full-size decode. Rows stream
    /// into a leading resize unless a delegate's `didDecode` must see the decoded image first.
    private func decode(
        _ data: Data, url: URL,
        for transforms: [any ImageTransformer]
    ) throws -> (Image, [any ImageTransformer]) {
        let decoder = try Self.decoder(in: registry, for: data, url: url)
        return try decoder.decode(
            data, limits: configuration.decodingLimits, for: transforms,
            reducingGap: configuration.shrinkOnLoadReducingGap, streamsRows: configuration.delegate == nil,
            color: colorStage?.forSource(url.absoluteString))
    }

    /// The decoder for these bytes, or the error that says why there is none: a known format without a
    /// registered decoder (install a plugin), or bytes that are no image format at all.
    private static func decoder(in registry: PluginRegistry, for data: Data, url: URL) throws -> any ImageDecoder {
        if let decoder = registry.decoder(for: data) { return decoder }
        if let format = ImageFormat.wellKnown(sniffing: data) {
            throw TroveError.noDecoder(format: format, url: url.absoluteString)
        }
        throw TroveError.unsupportedFormat(url: url.absoluteString, firstBytes: Array(data.prefix(8)))
    }

    /// Marks the response stale when its bytes were, and keeps it in memory for as long as they are fresh
    /// (never for no-store).
    private func remember(_ response: ImageResponse, _ raw: RawResult) -> ImageResponse {
        var response = response
        response.isStale = raw.isStale
        if raw.keepsInMemory {
            memoryCache.setValue(
                response, forKey: response.cacheKey.processed,
                cost: response.image.cost + response.data.count, ttl: raw.memoryTTL)
        }
        return response
    }
}

extension Optional {
    /// `map` for an async transform.
    func asyncFlatMap<T>(_ transform: (Wrapped) async throws -> T?) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
