import Foundation
import Tracing
import TroveCore
import TroveDiskCache
import TroveFetcher
import TroveMemoryCache
import TroveTransformers

/// Loads images: memory, then disk, then the network, with duplicate work coalesced at the raw
/// (fetched bytes) and processed (transformed result) levels. Composed from a registry and a
/// configuration; safe to share across tasks.
///
/// A request meets the stages (`Modules/Trove/Stages/`, each a `PipelineStage`: one input, one output) in
/// this order, read top to bottom in `image(for:)`, `run` and `process` here and in `original`
/// (`ImagePipeline+Original.swift`):
/// `MemoryStage` → `ProcessedDiskStage` → `OriginalDiskStage` → (one job per key) `SharedTierStage` →
/// `OriginStage` → `DecodeStage` → `TransformStage` → `StoreStage`. Every job is a `Jobs` entry: one per
/// processed key, waiting on one per raw key. `FreshnessPolicy` judges every cached copy; `CacheWriter` is
/// the only code that stores or removes an entry; `refresh` is `RefreshStage.swift`.
public final class ImagePipeline: Sendable {
    /// The configuration the pipeline was built from.
    public let configuration: PipelineConfiguration
    /// The plugins it was composed from: fetchers, decoders, encoders, transformers, hashers, policies, compressors.
    public let registry: PluginRegistry
    /// Responses by processed cache key, costed by decoded image cost plus data bytes, kept while fresh.
    public let memoryCache: MemoryCache<String, ImageResponse>
    /// Nil when the configuration has no cache directory.
    public var diskCache: DiskCache? { parts.diskCache }
    /// The queue of network fetches (running and queued counts).
    package var fetchScheduler: FetchScheduler { parts.scheduler }
    /// The fleet's shared tier; nil when the configuration names none.
    public var sharedTier: (any SharedCacheTier)? { parts.shared?.tier }
    /// What the shared tier has done and where its circuit breaker stands; nil without a shared tier.
    public var sharedTierStatus: SharedTierStatus? { parts.shared?.status }

    let parts: PipelineParts
    // The stages, in the order a request meets them.
    let memory: MemoryStage<ImageResponse>
    let processedDisk: ProcessedDiskStage
    // The original on disk, then the fetch: failure memory, one job per key, shared tier, origin
    // (`ImagePipeline+Original.swift`).
    let originalDisk: OriginalDiskStage
    /// Nil when the configuration names no shared tier.
    let sharedTierStage: SharedTierStage?
    let origin: OriginStage
    let decode: DecodeStage
    let transform: TransformStage
    let store: StoreStage

    /// Trims `memoryCache` under memory pressure; nil when there is nothing to watch.
    package let memoryPressureWatch: MemoryPressureWatch?
    /// This pipeline's part of every processed key (`CacheKey.pipelineSettings`); nil with the defaults.
    private let keySettings: String?
    /// One job per processed key and policy, past memory: the processed result, from disk or made from the
    /// original. Every request waits on one; `cancel(url:)` and `cancelAll()` reach them there.
    private let processedLoads = Jobs<WorkKey, ImageResponse>()
    /// One fetch per raw key, kind and policy however many ask; started on the caller's thread: a fetch does
    /// a few microseconds of bookkeeping, then waits on the network.
    let fetches = Jobs<WorkKey, RawResult>(startsImmediately: true)
    /// One revalidation per stored entry however many ask.
    let revalidations = Jobs<WorkKey, OriginAnswer>(startsImmediately: true)
    /// One placeholder computation per raw key and kind however many ask.
    let placeholderLoads = Jobs<WorkKey, String>()
    /// Bounds the memory decodes hold at once; nil when the configuration sets no budget.
    package let decodeBudget: DecodeMemoryBudget?

    /// Builds the pipeline; throws `unknownPlugin` (listing the known names) for a name the registry lacks,
    /// and `invalidConfiguration` for TLS options that cannot work (`TLSOptions.validate()`), before any
    /// cache directory is made. The default configuration keeps a disk cache in
    /// `PipelineConfiguration.defaultCacheDirectory`; pass `.memoryOnly` for none.
    public convenience init(registry: PluginRegistry = .standard, configuration: PipelineConfiguration = .init())
        throws
    {
        try self.init(registry: registry, configuration: configuration, loading: .images)
    }

    /// What a pipeline loads: images (bytes no decoder claims are refused and not cached), or any bytes, for a
    /// `DataPipeline`, which answers from its own memory and asks this pipeline only for the original's bytes.
    package enum Loading: Sendable {
        case images, bytes
    }

    /// Builds a pipeline that loads `loading`; see the public initialiser.
    package init(registry: PluginRegistry, configuration: PipelineConfiguration, loading: Loading) throws {
        try configuration.tls.validate()
        self.registry = registry
        self.configuration = configuration
        keySettings = Self.keySettings(configuration, colorConverter: registry.colorConverter)
        decodeBudget = configuration.decodeMemoryBudget.map {
            DecodeMemoryBudget(capacity: $0, queueLimit: configuration.decodeMemoryQueueLimit)
        }
        memoryCache = try MemoryCache(
            configuration: configuration.memory,
            evictionPolicy: registry.evictionPolicy(named: configuration.memoryEviction.rawValue))
        let diskCache = try configuration.makeDiskCache(registry: registry)
        let parts = PipelineParts(
            configuration: configuration, registry: registry, diskCache: diskCache,
            sharedTier: try configuration.makeSharedTier(registry: registry),
            accept: loading == .bytes ? nil : Self.decoderCheck(registry),
            defaultHeaders: loading == .bytes ? [:] : ["Accept": Self.accept(for: registry)])
        self.parts = parts
        memory = MemoryStage(cache: memoryCache, metrics: parts.metrics, headers: parts.headers)
        processedDisk = ProcessedDiskStage(disk: parts.disk, freshness: parts.freshness, headers: parts.headers)
        originalDisk = OriginalDiskStage(disk: parts.disk, freshness: parts.freshness, headers: parts.headers)
        sharedTierStage = parts.shared.map {
            SharedTierStage(
                shared: $0, freshness: parts.freshness, headers: parts.headers, cacheWriter: parts.cacheWriter,
                accept: parts.accept, logger: parts.logger)
        }
        origin = OriginStage(
            configuration: parts.configuration, registry: parts.registry, headers: parts.headers,
            scheduler: parts.scheduler, freshness: parts.freshness, cacheWriter: parts.cacheWriter,
            failures: parts.failures, accept: parts.accept, metrics: parts.metrics, activity: parts.activity,
            logger: parts.logger, tracing: parts.tracing)
        decode = DecodeStage(
            registry: registry, configuration: parts.configuration,
            colorStage: registry.colorConverter.map { ColorStage(converter: $0, logger: configuration.logger) },
            sourceGuard: parts.sourceGuard, cacheWriter: parts.cacheWriter, failures: parts.failures)
        transform = TransformStage(
            registry: registry, configuration: parts.configuration, sourceGuard: parts.sourceGuard)
        store = StoreStage(cacheWriter: parts.cacheWriter, memoryCache: memoryCache)
        // A data pipeline watches its own memory; this one's stays empty.
        memoryPressureWatch =
            loading == .bytes
            ? nil
            : MemoryPressureWatch(
                configuration.memoryPressure, cache: memoryCache, logger: configuration.logger,
                activity: parts.activity)
    }

    /// Waits until every store queued for the disk cache has been written (or has failed, logged and counted
    /// in its stats): disk writes are write-behind, so a result is delivered before its entry is on disk.
    /// Call it before handing the cache directory to another process or pipeline, or before exiting. It also
    /// waits for the revalidations of copies delivered stale under `stale-while-revalidate`.
    public func flush() async {
        // Placeholders are added to entries in the background; their writes join the disk's queue.
        await parts.cacheWriter.background.wait()
        await parts.diskCache?.flush()
    }

    /// Loads one image through the caches and the network; with `refresh`, returns the revalidated result.
    /// With `request.placeholder` set, the response carries the source's placeholder too.
    public func image(for request: ImageRequest) async throws -> ImageResponse {
        let key = cacheKey(for: request)
        guard parts.tracing.tracer == nil else {
            return try await load(request, key: key, waiter: JobWaiter.nextID()) { _ in }
        }
        // Untraced, a hit returns at once: no event to build, no closure to call.
        if let hit = memoryHit(request, key: key) {
            // Only when asked: passing the response through is a copy of every buffer reference it holds.
            return request.placeholder == nil ? hit : try await attachingPlaceholder(hit, for: request)
        }
        return try await run(request, key: key, waiter: JobWaiter.nextID()) { _ in }
    }

    /// The key this pipeline caches a request's results under: the request's own parts, plus the settings of
    /// this pipeline that shape a processed result.
    public func cacheKey(for request: ImageRequest) -> CacheKey {
        CacheKey(request, rule: configuration.cacheKeyRule, pipelineSettings: keySettings)
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
        // A request past its job may be waiting on its placeholder.
        processedLoads.cancel(url: url) + placeholderLoads.cancel(url: url)
    }

    /// Cancels every request running now; returns how many.
    @discardableResult
    public func cancelAll() -> Int {
        processedLoads.cancel { _ in true } + placeholderLoads.cancel { _ in true }
    }

    /// Starts a request whose progress, cached and final results arrive as events.
    public func task(for request: ImageRequest) -> ImageTask {
        let key = cacheKey(for: request)
        let waiter = JobWaiter.nextID()
        return ImageTask(
            run: { emit in try await self.load(request, key: key, waiter: waiter, emit: emit) },
            changePriority: { priority in
                self.processedLoads.setPriority(
                    priority, forKey: Self.jobKey(for: request, key: key, waiter: waiter), waiter: waiter)
            })
    }

    // MARK: - Flow

    /// Memory, else the request's job. When tracing, a hit is one `trove.memory` span, and past memory the
    /// request has a `trove.image` root whose children are the stages it takes (`ImagePipeline+Tracing.swift`).
    private func load(
        _ request: ImageRequest, key: CacheKey, waiter: UInt64,
        emit: @escaping @Sendable (ImageEvent) -> Void
    ) async throws -> ImageResponse {
        if parts.tracing.tracer != nil { return try await tracedLoad(request, key: key, waiter: waiter, emit: emit) }
        if var hit = memoryHit(request, key: key) {
            // Only when asked: passing the response through is a copy of every buffer reference it holds.
            if request.placeholder != nil { hit = try await attachingPlaceholder(hit, for: request) }
            emit(.final(hit))
            return hit
        }
        return try await run(request, key: key, waiter: waiter, emit: emit)
    }

    /// The processed result in memory, or nil to go on.
    func memoryHit(_ request: ImageRequest, key: CacheKey) -> ImageResponse? {
        memory.run((key: key.processed, policy: request.cachePolicy, maxAge: request.maxAge, headers: request.headers))
    }

    /// Bytes no decoder claims are not cached as if they were an image.
    private static func decoderCheck(_ registry: PluginRegistry) -> AcceptCheck {
        { data, url in try DecodeStage.decoder(in: registry, for: data, url: url) }
    }

    /// The `Accept` an image pipeline sends: the media types its decoders read, then anything else at a
    /// lower weight, so a negotiating origin picks a format this pipeline can decode (and, through `Vary:
    /// Accept`, each pipeline keeps the variant it was sent).
    static func accept(for registry: PluginRegistry) -> String {
        (registry.decodableFormats.map(\.mediaType) + ["*/*;q=0.8"]).joined(separator: ",")
    }

    /// The job a request waits on past memory: one per processed key and policy (the policy decides which
    /// tiers are read and written: a cache-only load fails on a miss that a plain load would fetch), except
    /// a refresh's, which delivers its cached copy first to its own caller alone. A caller that reads only the
    /// bytes waits on a job of its own kind, whose image may be empty.
    private static func jobKey(for request: ImageRequest, key: CacheKey, waiter: UInt64) -> WorkKey {
        let kind: WorkKey.Kind =
            if request.cachePolicy == .refresh {
                .alone(waiter: waiter)
            } else {
                request.options.contains(.needsOnlyData) ? .loadData : .load
            }
        return WorkKey(key.processed, kind, policy: request.cachePolicy)
    }

    /// Past memory: the request waits on its processed key's job, which loads the original (as a waiter of
    /// the raw key's job, through which progress, previews and priority flow) and processes it once.
    func run(
        _ request: ImageRequest, key: CacheKey, waiter id: UInt64, span: (any Span)? = nil,
        emit: @escaping @Sendable (ImageEvent) -> Void
    ) async throws -> ImageResponse {
        var waiter = JobWaiter(
            id: id, priority: request.priority, url: request.url, progress: { emit(.progress($0)) }, job: nil,
            span: span)
        if request.options.contains(.deliversPreviews) {
            waiter.previews = previews(for: request, key: key, emit: emit)
        }
        let response = try await processedLoads.value(
            forKey: Self.jobKey(for: request, key: key, waiter: waiter.id), as: waiter, onJoin: parts.recordJoin
        ) { job in
            // Decoded while the source arrives, when a fetch brings it and planes make the result.
            let streamed = self.streamedPlanarDecode(for: request, key: key)
            job.streamedDecode = streamed
            defer { streamed?.close() }
            let raw = RawRequest(
                url: request.url, key: key.raw, policy: request.cachePolicy,
                retryFailed: request.options.contains(.retryFailed), headers: request.headers,
                waiter: job.asWaiter(), maxAge: request.maxAge)
            switch request.cachePolicy {
            case .refresh:
                // Its own job: the events are its caller's.
                return try await self.refresh(request, key: key, raw: raw, emit: emit)
            case .reloadIgnoringCache:
                return try await self.process(request, key: key, try await self.fetch(raw), streamed: streamed)
            case .useCache, .cacheOnly, .memoryOnly:
                // The processed result on disk answers early: a later process decodes the small result.
                let stored = try await self.parts.tracing.span("trove.processed_disk") { span in
                    let stored = await self.processedDisk.run((request: request, key: key))
                    span?.updateAttributes { attributes in
                        attributes["trove.hit"] = stored != nil
                        if let stored { attributes["trove.bytes"] = stored.data.count }
                    }
                    return stored
                }
                if let stored { return try await self.answer(RawResult(stored), for: request, key: key) }
                // Then the fleet's copy, else made here (under the fleet's lease when results are shared).
                return try await self.sharedOrMade(request, key: key, raw: raw, streamed: streamed)
            }
        }
        // After the shared work: the response kept in memory never carries a placeholder.
        let answered = try await attachingPlaceholder(response, for: request)
        // A refresh has sent its own events.
        if request.cachePolicy != .refresh { emit(.final(answered)) }
        return answered
    }

    /// A processed result read back from disk or the shared tier: decoded whole (no transforms) and remembered.
    func answer(_ stored: RawResult, for request: ImageRequest, key: CacheKey) async throws -> ImageResponse {
        let image = try await parts.tracing.span("trove.decode") { span in
            let image = try decode.decode(stored.data, url: request.url)
            span?.record(.input, width: image.width, height: image.height, format: image.sourceFormat)
            return image
        }
        return store.remember(
            ImageResponse(
                image: image, data: stored.data, format: image.sourceFormat, source: stored.source, cacheKey: key),
            stored)
    }

    /// The original made into the result: decode, transform, store (and share, when made for the fleet).
    func process(
        _ request: ImageRequest, key: CacheKey, _ raw: RawResult, sharing: StoreStage.Sharing? = nil,
        streamed: StreamedPlanarDecode? = nil
    ) async throws -> ImageResponse {
        // A source a crash was traced to is refused before anything decodes it.
        try await parts.sourceGuard.refusePoisoned(request.url)
        // What the source is, found once for every step below.
        let probe = try await decode.probe(raw, for: request, key: key)
        // With a decode memory budget, the decode waits for room for what it and the transforms will hold.
        let reservation = try await reserveDecodeMemory(
            for: probe, key: key.processed, transforms: request.transformsAsRun)
        defer { reservation?.release() }
        // A large source's work runs on threads of its own, so it never holds the cooperative pool.
        let threads = probe.threads
        // Planes when `PlanarRoute` allows (a JPEG shrunk to a JPEG), else RGBA.
        let result: (image: Image, data: Data, format: ImageFormat)
        if let planar = try await planarResult(
            request, key: key, raw, probe: probe, threads: threads, streamed: streamed)
        {
            result = planar
        } else {
            result = try await rgbaResult(request, key: key, raw, probe: probe, threads: threads)
        }
        parts.metrics.record(.resultProcessed)
        let response = ImageResponse(
            image: result.image, data: result.data, format: result.format, source: raw.source, cacheKey: key)
        return try await parts.tracing.span("trove.store") { _ in
            await store.run((response: response, request: request, raw: raw, sharing: sharing))
        }
    }

    /// The result made the RGBA way: decoded (reduced, rows streamed into a leading resize), transformed and
    /// encoded, each in its span.
    private func rgbaResult(
        _ request: ImageRequest, key: CacheKey, _ raw: RawResult, probe: SourceProbe, threads: DecodeThreads?
    ) async throws -> (image: Image, data: Data, format: ImageFormat) {
        let tracing = parts.tracing
        let decoded = try await tracing.span("trove.decode") { span in
            let decoded = try await decode.run((raw: raw, request: request, key: key, probe: probe, threads: threads))
            span?.recordInput(probe, raw: raw, decoded: decoded.image)
            return decoded
        }
        try Task.checkCancellation()
        let transform = self.transform
        let input = (decoded: decoded.image, remaining: decoded.remaining, raw: raw, request: request, key: key)
        return try await tracing.span("trove.transform") { span in
            let result =
                if let threads {
                    try await threads.run { try transform.run(input) }
                } else {
                    try transform.run(input)
                }
            span?.record(
                .output, width: result.image.width, height: result.image.height, format: result.format,
                bytes: result.data.count)
            return result
        }
    }
}
