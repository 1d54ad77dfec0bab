import Foundation
import TroveCore
import TroveDiskCache
import TroveMemoryCache

/// A request for plain bytes (JSON, any file): the image pipeline's flow without decoding.
public struct DataRequest: Sendable {
    public var url: URL
    public var cachePolicy: CachePolicy
    public var retryFailed: Bool
    public var customCacheKey: String?
    public var headers: [String: String]
    public var priority: RequestPriority
    /// Overrides every freshness rule: a cached copy older than this is revalidated or fetched again.
    public var maxAge: Duration?

    public init(url: URL, cachePolicy: CachePolicy = .useCache, retryFailed: Bool = false,
                customCacheKey: String? = nil, headers: [String: String] = [:], priority: RequestPriority = .normal,
                maxAge: Duration? = nil) {
        self.url = url
        self.cachePolicy = cachePolicy
        self.retryFailed = retryFailed
        self.customCacheKey = customCacheKey
        self.headers = headers
        self.priority = priority
        self.maxAge = maxAge
    }

    public var cacheKey: String { customCacheKey ?? CacheKey.normalized(url) }
}

public struct DataResponse: Sendable {
    public var data: Data
    public var source: ResultSource
    public var contentType: String?
    public var cacheKey: String
    /// True when this is a cached copy past its freshness, delivered because the origin failed.
    public var isStale = false
}

public typealias DataTask = PipelineTask<DataResponse>

/// Caches plain data with the same policies as images: memory, disk, network; coalescing, scheduling,
/// retries, failure memory and revalidation included.
public final class DataPipeline: Sendable {
    public let configuration: PipelineConfiguration
    public let memoryCache: MemoryCache<String, DataResponse>
    public var diskCache: DiskCache? { loader.diskCache }
    public var fetchScheduler: FetchScheduler { loader.scheduler }
    /// The fleet's shared tier; nil when the configuration names none.
    public var sharedTier: (any SharedCacheTier)? { loader.shared?.tier }
    /// What the shared tier has done and where its circuit breaker stands; nil without a shared tier.
    public var sharedTierStatus: SharedTierStatus? { loader.shared?.status }
    let loader: RawDataLoader

    public init(registry: PluginRegistry = .standard, configuration: PipelineConfiguration = .init()) throws {
        self.configuration = configuration
        memoryCache = try MemoryCache(configuration: configuration.memoryCacheConfiguration,
                                      evictionPolicy: registry.evictionPolicy(named: configuration.memoryEviction))
        loader = RawDataLoader(
            configuration: configuration, registry: registry, diskCache: try configuration.makeDiskCache(registry: registry),
            sharedTier: try configuration.makeSharedTier(registry: registry), accept: nil)
    }

    public func data(for request: DataRequest) async throws -> DataResponse {
        if let hit = memoryHit(request) { return hit }
        return try await run(request, waiter: WaiterID.next(), emit: { _ in })
    }

    public func data(for url: URL) async throws -> DataResponse {
        try await data(for: DataRequest(url: url))
    }

    public func task(for request: DataRequest) -> DataTask {
        let waiter = WaiterID.next()
        return DataTask(run: { emit in
            if let hit = self.memoryHit(request) {
                emit(.final(hit))
                return hit
            }
            return try await self.run(request, waiter: waiter, emit: emit)
        }, changePriority: { priority in
            self.loader.setPriority(priority, forKey: request.cacheKey, waiter: waiter)
        })
    }

    private func memoryHit(_ request: DataRequest) -> DataResponse? {
        loader.memoryHit(memoryCache, key: request.cacheKey, policy: request.cachePolicy, maxAge: request.maxAge)
    }

    private func run(_ request: DataRequest, waiter: UInt64,
                     emit: @escaping @Sendable (PipelineEvent<DataResponse>) -> Void) async throws -> DataResponse {
        let raw = RawRequest(url: request.url, key: request.cacheKey, policy: request.cachePolicy,
                             retryFailed: request.retryFailed, headers: request.headers, priority: request.priority,
                             waiter: waiter, progress: { emit(.progress($0)) }, maxAge: request.maxAge)
        let response: DataResponse
        if request.cachePolicy == .refresh, let entry = await loader.cached(raw.key, includingStale: true) {
            emit(.cached(remember(RawResult(entry), key: raw.key)))
            // The origin down: what the cache had stands, marked stale.
            response = remember(try await loader.deliveringStaleOnFailure(entry, for: raw) {
                switch try await self.loader.revalidate(raw, entry: entry) {
                case let .notModified(expires)?:
                    var result = RawResult(entry)
                    result.expires = expires
                    return result
                case let .modified(result)?: return result
                case nil: return try await self.loader.fetch(raw)
                }
            }, key: raw.key)
        } else if request.cachePolicy == .reloadIgnoringCache || request.cachePolicy == .refresh {
            response = remember(try await loader.fetch(raw), key: raw.key)
        } else {
            response = remember(try await loader.load(raw), key: raw.key)
        }
        emit(.final(response))
        return response
    }

    /// The response for these bytes, kept in memory for as long as they are fresh (never for no-store).
    private func remember(_ raw: RawResult, key: String) -> DataResponse {
        let response = DataResponse(data: raw.data, source: raw.source, contentType: raw.contentType, cacheKey: key,
                                    isStale: raw.isStale)
        if raw.keepsInMemory { memoryCache.setValue(response, forKey: key, cost: raw.data.count, ttl: raw.memoryTTL) }
        return response
    }
}
