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

    public init(url: URL, cachePolicy: CachePolicy = .useCache, retryFailed: Bool = false,
                customCacheKey: String? = nil, headers: [String: String] = [:], priority: RequestPriority = .normal) {
        self.url = url
        self.cachePolicy = cachePolicy
        self.retryFailed = retryFailed
        self.customCacheKey = customCacheKey
        self.headers = headers
        self.priority = priority
    }

    public var cacheKey: String { customCacheKey ?? CacheKey.normalized(url) }
}

public struct DataResponse: Sendable {
    public var data: Data
    public var source: ResultSource
    public var contentType: String?
    public var cacheKey: String
}

public typealias DataTask = PipelineTask<DataResponse>

/// Caches plain data with the same policies as images: memory, disk, network; coalescing, scheduling,
/// retries, failure memory and revalidation included.
public final class DataPipeline: Sendable {
    public let configuration: PipelineConfiguration
    public let memoryCache: MemoryCache<String, DataResponse>
    public var diskCache: DiskCache? { loader.diskCache }
    public var fetchScheduler: FetchScheduler { loader.scheduler }
    private let loader: RawDataLoader

    public init(registry: PluginRegistry = .standard, configuration: PipelineConfiguration = .init()) throws {
        self.configuration = configuration
        memoryCache = try MemoryCache(configuration: configuration.memoryCacheConfiguration,
                                      evictionPolicy: registry.evictionPolicy(named: configuration.memoryEviction))
        loader = RawDataLoader(
            configuration: configuration, registry: registry, diskCache: try configuration.makeDiskCache(registry: registry),
            accept: { _, _ in })
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
        loader.memoryHit(memoryCache, key: request.cacheKey, policy: request.cachePolicy)
    }

    private func run(_ request: DataRequest, waiter: UInt64,
                     emit: @escaping @Sendable (PipelineEvent<DataResponse>) -> Void) async throws -> DataResponse {
        let raw = RawRequest(url: request.url, key: request.cacheKey, policy: request.cachePolicy,
                             retryFailed: request.retryFailed, headers: request.headers, priority: request.priority,
                             waiter: waiter, progress: { emit(.progress($0)) })
        let response: DataResponse
        if request.cachePolicy == .refresh, let entry = await loader.cached(raw.key) {
            let cached = remember(RawResult(data: entry.data, source: .disk, contentType: entry.metadata.contentType),
                                  key: raw.key)
            emit(.cached(cached))
            switch try await loader.revalidate(raw, entry: entry) {
            case .notModified?: response = cached
            case let .modified(result)?: response = remember(result, key: raw.key)
            case nil: response = remember(try await loader.fetch(raw), key: raw.key)
            }
        } else if request.cachePolicy == .reloadIgnoringCache || request.cachePolicy == .refresh {
            response = remember(try await loader.fetch(raw), key: raw.key)
        } else {
            response = remember(try await loader.load(raw), key: raw.key)
        }
        emit(.final(response))
        return response
    }

    private func remember(_ raw: RawResult, key: String) -> DataResponse {
        let response = DataResponse(data: raw.data, source: raw.source, contentType: raw.contentType, cacheKey: key)
        memoryCache.setValue(response, forKey: key, cost: raw.data.count)
        return response
    }
}
