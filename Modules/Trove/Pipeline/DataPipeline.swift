import Crypto
import Foundation
import Tracing
import TroveCore
import TroveDiskCache
import TroveFetcher
import TroveMemoryCache

/// A request for plain bytes (JSON, any file): the image pipeline's flow without decoding.
public struct DataRequest: Sendable {
    /// The URL to load; the registry's fetcher for its scheme fetches it.
    public var url: URL
    /// How the caches are used (default `.useCache`).
    public var cachePolicy: CachePolicy
    /// Fetch even if this URL failed for a lasting reason recently; otherwise such a URL throws `previouslyFailed`.
    public var retryFailed: Bool
    /// Replaces the normalized URL as the cache key (e.g. a signed URL whose query changes).
    public var customCacheKey: String?
    /// Sent with this request's fetch, on top of the pipeline's headers (these win). A `Cache-Control`
    /// among them also asks the caches, as RFC 9111 §5.2.1 says (`max-age`, `max-stale`, `min-fresh`,
    /// `no-cache`, `no-store`, `only-if-cached`, whose miss throws `notCached`), and an `If-None-Match` or
    /// `If-Modified-Since` that a cached response satisfies is answered 304 with no body.
    public var headers: [String: String]
    /// Scheduling priority while the fetch waits for a slot (default `.normal`).
    public var priority: RequestPriority
    /// Overrides every freshness rule: a cached copy older than this is revalidated or fetched again.
    public var maxAge: Duration?
    /// The HTTP method (default GET); kept upper case, as methods are compared (`"post"` becomes `"POST"`).
    public var method = "GET" {
        didSet { if method != method.uppercased() { method = method.uppercased() } }
    }
    /// The body sent with `method`; nil sends none.
    public var body: Data?
    /// Lets a method other than GET and HEAD use the caches, as an app's cache of API calls does: its answer
    /// is then kept and given under a key of the method, the body's SHA-256 and the URL. Without it such a
    /// request goes to the origin every time and is kept nowhere.
    public var cachesOtherMethods = false

    /// A request for `url`; by default: `.useCache`, remembered failures not retried, the URL as key, no extra
    /// headers, `.normal` priority, no `maxAge`.
    public init(
        url: URL, cachePolicy: CachePolicy = .useCache, retryFailed: Bool = false,
        customCacheKey: String? = nil, headers: [String: String] = [:], priority: RequestPriority = .normal,
        maxAge: Duration? = nil
    ) {
        self.url = url
        self.cachePolicy = cachePolicy
        self.retryFailed = retryFailed
        self.customCacheKey = customCacheKey
        self.headers = headers
        self.priority = priority
        self.maxAge = maxAge
    }

    /// The key in every cache tier: `customCacheKey`, else the normalized URL; for a method other than GET,
    /// or a body, that source with the method and the body's SHA-256 (`CacheKey.request`).
    public var cacheKey: String {
        // Through CacheKey, so a custom key that starts with NUL cannot spell a request or processed key.
        let source = CacheKey(source: customCacheKey ?? CacheKey.normalized(url)).raw
        guard method != "GET" || body != nil else { return source }
        let digest = SHA256.hash(data: body ?? Data()).map { String(format: "%02x", $0) }.joined()
        return CacheKey.request(method: method, bodyDigest: digest, source: source)
    }

    /// Whether the caches may keep and give this request's answer: GET and HEAD, or another method that
    /// opted in (`cachesOtherMethods`).
    package var usesCaches: Bool { method == "GET" || method == "HEAD" || cachesOtherMethods }

    /// What the request's own `Cache-Control` asks of the caches.
    var asked: RequestDirectives { RequestDirectives(headers: headers) }
}

/// What a `DataPipeline` hands back: the bytes, where they came from, and their content type.
public struct DataResponse: Sendable {
    /// The body, as fetched or as cached.
    public var data: Data
    /// Which tier answered: memory, disk, the shared tier, or the network.
    public var source: ResultSource
    /// The Content-Type the origin sent, stored with the entry; nil when it sent none.
    public var contentType: String?
    /// The key the response is cached under (the request's `cacheKey`).
    public var cacheKey: String
    /// True when this is a cached copy past its freshness: delivered because the origin failed, while it is
    /// revalidated behind the answer (stale-while-revalidate), or because the request took it (`max-stale`).
    public var isStale = false
    /// The HTTP status: the origin's, or the stored response's for a cached copy (206 for a range cut
    /// from a stored whole response); 200 for sources that are not HTTP.
    public var status = 200
    /// The response's header fields in order: as received, or as stored (updated by 304s) with the copy's
    /// `Age` for a cached one; empty for sources that are not HTTP.
    public var headerFields: [HeaderField] = []
    /// The request fields that selected the response (`Vary`): a cached copy answers only a request that
    /// sends the same values.
    package var selecting: [SelectingField] = []
}

/// A running `DataPipeline` request: its events, final response, and priority and cancel handles.
public typealias DataTask = PipelineTask<DataResponse>

/// Caches plain data with the same policies as images: memory, disk, network; coalescing, scheduling,
/// retries, failure memory and revalidation included.
public final class DataPipeline: Sendable {
    /// The configuration the pipeline was built from.
    public let configuration: PipelineConfiguration
    /// Responses by cache key, costed by their byte count, kept while fresh (never no-store ones).
    public let memoryCache: MemoryCache<String, DataResponse>
    /// Nil when the configuration has no cache directory.
    public var diskCache: DiskCache? { parts.diskCache }
    /// The queue of network fetches (running and queued counts).
    package var fetchScheduler: FetchScheduler { parts.scheduler }
    /// The fleet's shared tier; nil when the configuration names none.
    public var sharedTier: (any SharedCacheTier)? { parts.shared?.tier }
    /// What the shared tier has done and where its circuit breaker stands; nil without a shared tier.
    public var sharedTierStatus: SharedTierStatus? { parts.shared?.status }
    let parts: PipelineParts
    // The stages, in the order a request meets them: memory, then the original on disk, the fetch (failure
    // memory, coalescing), the shared tier and the origin, which `originals` runs; no decode, transform or
    // processed store.
    let memory: MemoryStage<DataResponse>
    /// An image pipeline that stops at the original's bytes (`ImagePipeline.Loading.bytes`): every tier past
    /// memory, read top to bottom in `ImagePipeline+Original.swift`. Its own memory stays empty.
    let originals: ImagePipeline
    /// Trims `memoryCache` under memory pressure; nil when there is nothing to watch.
    package let memoryPressureWatch: MemoryPressureWatch?
    /// Every request past memory waits on a job of its own, which waits on the raw key's fetch as it needs
    /// to; `cancel(url:)` and `cancelAll()` reach requests there. Started on the caller's thread: a miss
    /// goes on to the disk and the network without waiting for a pool thread.
    private let requests = Jobs<WorkKey, DataResponse>(startsImmediately: true)

    /// Builds the pipeline; throws `unknownPlugin` (listing the known names) for a hasher, eviction or
    /// compressor name the registry lacks, `invalidConfiguration` for bad disk limits, an unserved shared-tier
    /// scheme or TLS options that cannot work (`TLSOptions.validate()`, checked before any cache directory is
    /// made), and `ioFailed` when the cache directory cannot be created. The default configuration keeps a
    /// disk cache in `PipelineConfiguration.defaultCacheDirectory`; pass `.memoryOnly` for none.
    public init(registry: PluginRegistry = .standard, configuration: PipelineConfiguration = .init()) throws {
        try configuration.tls.validate()
        self.configuration = configuration
        memoryCache = try MemoryCache(
            configuration: configuration.memory,
            evictionPolicy: registry.evictionPolicy(named: configuration.memoryEviction.rawValue))
        originals = try ImagePipeline(registry: registry, configuration: configuration, loading: .bytes)
        let parts = originals.parts
        self.parts = parts
        memory = MemoryStage(cache: memoryCache, metrics: parts.metrics, headers: parts.headers)
        memoryPressureWatch = MemoryPressureWatch(
            configuration.memoryPressure, cache: memoryCache, logger: configuration.logger, activity: parts.activity)
    }

    /// Waits until every store queued for the disk cache has been written (or has failed, logged and counted
    /// in its stats): disk writes are write-behind, so a result is delivered before its entry is on disk.
    /// Call it before handing the cache directory to another process or pipeline, or before exiting. It also
    /// waits for the revalidations of copies delivered stale under `stale-while-revalidate`.
    public func flush() async {
        // Revalidations of copies delivered stale (stale-while-revalidate) run behind their callers.
        await parts.cacheWriter.background.wait()
        await parts.diskCache?.flush()
    }

    /// Loads the bytes through memory, disk, the shared tier and the network as the request's policy says; with
    /// `refresh`, returns the revalidated result. Throws a `TroveError`, e.g. `notCached` for a `cacheOnly` miss.
    public func data(for request: DataRequest) async throws -> DataResponse {
        let request = request.keyed(by: configuration.cacheKeyRule)
        if parts.tracing.tracer != nil { return try await tracedLoad(request, waiter: JobWaiter.nextID()) { _ in } }
        if let hit = memoryHit(request) { return hit }
        return try await run(request, waiter: JobWaiter.nextID()) { _ in }
    }

    /// Convenience for a plain URL with the default request.
    public func data(for url: URL) async throws -> DataResponse {
        try await data(for: DataRequest(url: url))
    }

    /// Cancels every request for `url` running now (callers of `data(for:)` and tasks): each ends
    /// with `TroveError.cancelled`; work shared with requests for other URLs carries on for them. Returns how
    /// many were cancelled.
    @discardableResult
    public func cancel(url: URL) -> Int {
        requests.cancel(url: url)
    }

    /// Cancels every request running now; returns how many.
    @discardableResult
    public func cancelAll() -> Int {
        requests.cancel { _ in true }
    }

    /// Starts a request whose progress, cached and final results arrive as events.
    public func task(for request: DataRequest) -> DataTask {
        let request = request.keyed(by: configuration.cacheKeyRule)
        let waiter = JobWaiter.nextID()
        return DataTask(
            run: { emit in
                if self.parts.tracing.tracer != nil {
                    return try await self.tracedLoad(request, waiter: waiter, emit: emit)
                }
                if let hit = self.memoryHit(request) {
                    emit(.final(hit))
                    return hit
                }
                return try await self.run(request, waiter: waiter, emit: emit)
            },
            changePriority: { priority in
                self.requests.setPriority(priority, forKey: Self.jobKey(for: request, waiter: waiter), waiter: waiter)
            })
    }

    /// Each request's job is its own: two data requests for one key may differ in method, body and headers.
    /// They share the raw key's fetch (`RawRequest.fetchKind`) below it.
    private static func jobKey(for request: DataRequest, waiter: UInt64) -> WorkKey {
        WorkKey(request.cacheKey, .alone(waiter: waiter), policy: request.cachePolicy)
    }

    private func memoryHit(_ request: DataRequest) -> DataResponse? {
        guard request.usesCaches, !request.asked.judgesStoredCopies else { return nil }
        return memory.run(
            (key: request.cacheKey, policy: request.cachePolicy, maxAge: request.maxAge, headers: request.headers)
        )
        .map { $0.answering(request) }
    }

    /// With a tracer: a memory hit is one `trove.memory` span; past memory the request has a `trove.data` root
    /// (the memory lookup its first child, then its `originals`' stages) with the URL (redacted), the tier that
    /// answered and the bytes.
    private func tracedLoad(
        _ request: DataRequest, waiter: UInt64, emit: @escaping @Sendable (PipelineEvent<DataResponse>) -> Void
    ) async throws -> DataResponse {
        let tracing = parts.tracing
        let start = DefaultTracerClock.now
        if let hit = memoryHit(request) {
            tracing.memoryLookup(since: start, hit: true, bytes: hit.data.count)
            emit(.final(hit))
            return hit
        }
        return try await tracing.span("trove.data", at: start) { span in
            if request.usesCaches { tracing.memoryLookup(since: start, hit: false) }
            span?.record(url: request.url)
            span?.attributes["http.request.method"] = request.method
            let response = try await run(request, waiter: waiter, span: span, emit: emit)
            span?.attributes["trove.source"] = response.source.rawValue
            span?.attributes["trove.bytes"] = response.data.count
            return response
        }
    }

    /// Past memory: the request's own job, waiting on the raw key's fetch as its policy says.
    private func run(
        _ request: DataRequest, waiter id: UInt64, span: (any Span)? = nil,
        emit: @escaping @Sendable (PipelineEvent<DataResponse>) -> Void
    ) async throws -> DataResponse {
        let waiter = JobWaiter(
            id: id, priority: request.priority, url: request.url, progress: { emit(.progress($0)) }, job: nil,
            span: span)
        return try await requests.value(forKey: Self.jobKey(for: request, waiter: id), as: waiter) { job in
            try await self.load(request, waiter: job.asWaiter(), emit: emit)
        }
    }

    private func load(
        _ request: DataRequest, waiter: JobWaiter,
        emit: @escaping @Sendable (PipelineEvent<DataResponse>) -> Void
    ) async throws -> DataResponse {
        var raw = RawRequest(
            url: request.url, key: request.cacheKey, policy: request.cachePolicy,
            retryFailed: request.retryFailed, headers: request.headers, waiter: waiter, maxAge: request.maxAge)
        raw.method = request.method
        raw.body = request.body
        raw.usesCaches = request.usesCaches
        raw.asked = request.asked
        // only-if-cached never reaches the network, whatever the method or the policy says.
        if raw.asked.onlyIfCached,
            !request.usesCaches || request.cachePolicy == .reloadIgnoringCache || request.cachePolicy == .refresh
        {
            throw TroveError.notCached(key: raw.key)
        }
        var response: DataResponse
        if !request.usesCaches {
            // Offline means offline, whatever the method.
            if request.cachePolicy == .cacheOnly { throw TroveError.notCached(key: raw.key) }
            // Straight to the origin, kept nowhere; identical requests in flight share an idempotent
            // method's answer, never a POST's (`RawRequest.fetchKind`).
            let fetched = try await originals.fetch(raw)
            response = DataResponse(
                data: fetched.data, source: fetched.source, contentType: fetched.contentType, cacheKey: raw.key,
                isStale: false, status: fetched.status, headerFields: fetched.headerFields)
        } else if request.cachePolicy == .refresh, let refreshed = try await refresh(raw, emit: emit) {
            response = refreshed
        } else if request.cachePolicy == .reloadIgnoringCache || request.cachePolicy == .refresh {
            response = remember(try await originals.fetch(raw), key: raw.key)
        } else {
            response = remember(try await originals.original(raw), key: raw.key)
        }
        if !request.isSafe, !request.cachesOtherMethods, response.source == .network {
            await invalidate(after: request, response)
        }
        if request.method == "HEAD", response.source == .network, response.status == 200, !raw.asked.noStore {
            response = await freshening(byHead: response, for: request)
        }
        response = response.answering(request)
        emit(.final(response))
        return response
    }

    /// The response for these bytes, kept in memory for as long as they are fresh (never for no-store).
    func remember(_ raw: RawResult, key: String) -> DataResponse {
        let response = DataResponse(
            data: raw.data, source: raw.source, contentType: raw.contentType, cacheKey: key,
            isStale: raw.isStale, status: raw.status, headerFields: raw.headerFields, selecting: raw.selecting)
        parts.cacheWriter.remember(response, in: memoryCache, forKey: key, cost: raw.data.count, raw)
        return response
    }
}
