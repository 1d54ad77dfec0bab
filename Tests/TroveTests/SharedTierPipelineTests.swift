import Foundation
import Synchronization
import Testing
import Trove
import TroveCore
import TroveDiskCache
import TroveRedis
import TroveTestSupport

/// An origin for the `origin://` scheme: each URL's bytes are derived from the URL, every fetch is counted,
/// and a fetch can be made slow or marked no-store.
final class CountingOrigin: Fetcher {
    let name = "counting-origin"
    let schemes: Set<String> = ["origin"]
    private let counts = Mutex<[String: Int]>([:])
    let delay: Duration
    let noStore: Bool

    init(delay: Duration = .zero, noStore: Bool = false) {
        self.delay = delay
        self.noStore = noStore
    }

    /// The bytes the origin serves for `url`: every byte value, then the URL.
    static func body(for url: URL) -> Data {
        Data((0...255).map { UInt8($0) } + Array(url.absoluteString.utf8))
    }

    var total: Int { counts.withLock { $0.values.reduce(0, +) } }

    /// Fetches of exactly this URL.
    func count(for url: URL) -> Int { counts.withLock { $0[url.absoluteString] ?? 0 } }

    func fetch(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) async throws
        -> FetchOutcome
    {
        counts.withLock { $0[request.url.absoluteString, default: 0] += 1 }
        if delay > .zero { try await Task.sleep(for: delay) }
        return .data(
            Self.body(for: request.url),
            ResponseMetadata(
                url: request.url, contentType: "application/octet-stream",
                validators: Validators(etag: "\"v1\""),
                directives: CacheDirectives(noStore: noStore, freshness: .seconds(3600))))
    }
}

/// The pipeline's shared tier against a real redis-server: hits fill the local tiers, bad values are never
/// served, an unreachable server degrades to the origin behind a circuit breaker, a wrong password fails.
@Suite(.serialized) struct SharedTierPipelineTests {
    static func pipeline(
        _ directory: URL, sharedCache: URL?, origin: CountingOrigin,
        options: SharedTierOptions = SharedTierOptions(
            connectTimeout: .milliseconds(300),
            commandTimeout: .milliseconds(300)),
        policy: SharedTierPolicy = SharedTierPolicy(), keyRule: CacheKeyRule = CacheKeyRule()
    ) throws -> DataPipeline {
        var registry = PluginRegistry.standard
        try registry.install(TroveRedisPlugin())
        try registry.register(fetcher: origin)
        var configuration = PipelineConfiguration(cacheDirectory: directory)
        configuration.sharedCache = sharedCache
        configuration.sharedTierOptions = options
        configuration.sharedTierPolicy = policy
        configuration.retryPolicy = RetryPolicy(maxRetries: 0)
        configuration.cacheKeyRule = keyRule
        return try DataPipeline(registry: registry, configuration: configuration)
    }

    static func url(_ name: String) -> URL { URL(string: "origin://fixture/\(name)")! }

    @Test func sharedHitFillsDiskAndMemoryWithoutAskingTheOrigin() async throws {
        try await withRedisServer { server in
            try await withTemporaryDirectory { directory in
                let origin = CountingOrigin()
                let first = try Self.pipeline(
                    directory.appendingPathComponent("a"), sharedCache: server.url(), origin: origin)
                let second = try Self.pipeline(
                    directory.appendingPathComponent("b"), sharedCache: server.url(), origin: origin)
                let url = Self.url("cat.bin")

                let fetched = try await first.data(for: url)
                #expect(fetched.source == .network)
                #expect(origin.total == 1)

                let shared = try await second.data(for: url)
                #expect(shared.source == .shared)
                #expect(shared.data == CountingOrigin.body(for: url))
                #expect(shared.contentType == "application/octet-stream")
                #expect(origin.total == 1)
                let onDisk = try #require(try await second.diskCache?.entry(forKey: DataRequest(url: url).cacheKey))
                #expect(onDisk.data == shared.data)
                #expect(onDisk.metadata.validators.etag == "\"v1\"")
                #expect(try await second.data(for: url).source == .memory)
                #expect(second.sharedTierStatus?.tier.hits == 1)
                #expect(second.sharedTierStatus?.breaker == .closed)
                await first.sharedTier?.shutdown()
                await second.sharedTier?.shutdown()
            }
        }
    }

    @Test func aSignedURLUnderAnotherSignatureIsAHitInTheSharedTier() async throws {
        try await withRedisServer { server in
            try await withTemporaryDirectory { directory in
                let origin = CountingOrigin()
                let rule = CacheKeyRule(droppedQueryParameters: ["Signature", "Expires"])
                let first = try Self.pipeline(
                    directory.appendingPathComponent("a"), sharedCache: server.url(), origin: origin, keyRule: rule)
                let second = try Self.pipeline(
                    directory.appendingPathComponent("b"), sharedCache: server.url(), origin: origin, keyRule: rule)
                let signed = URL(string: "origin://fixture/cat.bin?Expires=100&Signature=aaa")!
                let resigned = URL(string: "origin://fixture/cat.bin?Expires=200&Signature=bbb")!

                #expect(try await first.data(for: signed).source == .network)
                let shared = try await second.data(for: resigned)
                #expect(shared.source == .shared)
                // The bytes of the first signature's fetch, the only one the origin saw.
                #expect(shared.data == CountingOrigin.body(for: signed))
                #expect(origin.total == 1 && origin.count(for: signed) == 1)
                #expect(shared.cacheKey == "origin://fixture/cat.bin")
                // Forgetting under a third signature removes the shared copy too.
                let report = await second.forget(url: URL(string: "origin://fixture/cat.bin?Signature=ccc")!)
                #expect(report.shared == 1 && report.disk == 1 && report.memory == 1)
                await first.sharedTier?.shutdown()
                await second.sharedTier?.shutdown()
            }
        }
    }

    @Test func twoPipelinesMissingAtOnceMakeOneOriginRequest() async throws {
        try await withRedisServer { server in
            try await withTemporaryDirectory { directory in
                let origin = CountingOrigin(delay: .milliseconds(300))
                let pipelines = try (0..<3).map {
                    try Self.pipeline(
                        directory.appendingPathComponent("\($0)"), sharedCache: server.url(), origin: origin)
                }
                let url = Self.url("popular.bin")
                let sources = try await withThrowingTaskGroup(of: ResultSource.self) { group in
                    for pipeline in pipelines {
                        group.addTask {
                            let response = try await pipeline.data(for: url)
                            #expect(response.data == CountingOrigin.body(for: url))
                            return response.source
                        }
                    }
                    return try await group.reduce(into: [ResultSource]()) { $0.append($1) }
                }
                #expect(origin.total == 1)
                #expect(sources.filter { $0 == .network }.count == 1)
                #expect(sources.filter { $0 == .shared }.count == 2)
                #expect(pipelines.compactMap(\.sharedTierStatus).map(\.leaseWaits).reduce(0, +) == 2)
                for pipeline in pipelines { await pipeline.sharedTier?.shutdown() }
            }
        }
    }

    @Test(arguments: ["garbage", "foreign entry"])
    func aDamagedValueIsDetectedRefetchedAndNeverServed(kind: String) async throws {
        try await withRedisServer { server in
            try await withTemporaryDirectory { directory in
                let origin = CountingOrigin()
                let url = Self.url("photo.bin")
                let key = DataRequest(url: url).cacheKey
                let writer = try Self.pipeline(
                    directory.appendingPathComponent("w"), sharedCache: server.url(), origin: origin)
                _ = try await writer.data(for: url)
                // Overwrite the value behind the pipeline's back, as `redis-cli SET` would.
                let bad =
                    kind == "garbage"
                    ? Data("not a trove entry".utf8)
                    : try EntryCodec.encode(
                        Data("another key's bytes".utf8), forKey: "origin://fixture/other.bin",
                        metadata: DiskEntryMetadata())
                let admin = try #require(writer.sharedTier)
                try await admin.set(key, value: bad, ttl: .seconds(60))

                let reader = try Self.pipeline(
                    directory.appendingPathComponent("r"), sharedCache: server.url(), origin: origin)
                let response = try await reader.data(for: url)
                #expect(response.source == .network)
                #expect(response.data == CountingOrigin.body(for: url))
                #expect(origin.total == 2)
                #expect(reader.sharedTierStatus?.rejected == 1)
                // The refetch replaced the bad value: a third process gets the good bytes from the tier.
                let third = try Self.pipeline(
                    directory.appendingPathComponent("t"), sharedCache: server.url(), origin: origin)
                let again = try await third.data(for: url)
                #expect(again.source == .shared)
                #expect(again.data == CountingOrigin.body(for: url))
                #expect(origin.total == 2)
                for pipeline in [writer, reader, third] { await pipeline.sharedTier?.shutdown() }
            }
        }
    }

    @Test func aServerThatIsDownDegradesToTheOriginAndIsCounted() async throws {
        try await withTemporaryDirectory { directory in
            // A port nothing listens on.
            let url = URL(string: "redis://127.0.0.1:\(try freeLoopbackPort())")!
            let origin = CountingOrigin()
            let pipeline = try Self.pipeline(
                directory, sharedCache: url, origin: origin,
                policy: SharedTierPolicy(failureThreshold: 2, cooldown: .seconds(60)))
            for index in 0..<6 {
                let target = Self.url("down-\(index).bin")
                let response = try await pipeline.data(for: target)
                #expect(response.source == .network)
                #expect(response.data == CountingOrigin.body(for: target))
            }
            #expect(origin.total == 6)
            let status = try #require(pipeline.sharedTierStatus)
            #expect(status.unavailable == 2)
            #expect(status.breaker == .open)
            // Open: the remaining calls (get, lease, set of each request) never went to the server.
            #expect(status.bypassed >= 12)
            await pipeline.sharedTier?.shutdown()
        }
    }

    @Test func theBreakerOpensWhileRedisIsDownAndClosesWhenItIsBack() async throws {
        try await withRedisServer { server in
            try await withTemporaryDirectory { directory in
                let origin = CountingOrigin()
                let policy = SharedTierPolicy(failureThreshold: 2, cooldown: .milliseconds(200))
                let pipeline = try Self.pipeline(
                    directory.appendingPathComponent("p"), sharedCache: server.url(),
                    origin: origin, policy: policy)
                _ = try await pipeline.data(for: Self.url("before.bin"))
                #expect(pipeline.sharedTierStatus?.breaker == .closed)

                await server.kill()
                var index = 0
                let opened = try await eventually(within: .seconds(10)) {
                    index += 1
                    let target = Self.url("during-\(index).bin")
                    let data = try await pipeline.data(for: target).data
                    #expect(data == CountingOrigin.body(for: target))
                    return pipeline.sharedTierStatus?.breaker == .open
                }
                #expect(opened)

                try await server.restart()
                let closed = try await eventually(within: .seconds(10)) {
                    index += 1
                    let target = Self.url("after-\(index).bin")
                    let data = try await pipeline.data(for: target).data
                    #expect(data == CountingOrigin.body(for: target))
                    return pipeline.sharedTierStatus?.breaker == .closed
                }
                #expect(closed)
                // Used again without a new pipeline: what it fetches now, another process finds in the tier.
                let target = Self.url("shared-again.bin")
                _ = try await pipeline.data(for: target)
                let other = try Self.pipeline(
                    directory.appendingPathComponent("o"), sharedCache: server.url(),
                    origin: origin, policy: policy)
                #expect(try await other.data(for: target).source == .shared)
                await pipeline.sharedTier?.shutdown()
                await other.sharedTier?.shutdown()
            }
        }
    }

    @Test func aWrongPasswordFailsTheRequestNamingAuthentication() async throws {
        try await withRedisServer(password: "right-password") { server in
            try await withTemporaryDirectory { directory in
                let origin = CountingOrigin()
                let pipeline = try Self.pipeline(
                    directory, sharedCache: server.url(password: "wrong-password"),
                    origin: origin)
                let error = await #expect(throws: TroveError.self) {
                    try await pipeline.data(for: Self.url("secret.bin"))
                }
                guard case let .invalidConfiguration(message)? = error else {
                    Issue.record("expected invalidConfiguration, got \(String(describing: error))")
                    return
                }
                #expect(message.contains("authentication"))
                #expect(origin.total == 0)
                await pipeline.sharedTier?.shutdown()
            }
        }
    }

    @Test func noStoreAndOversizedResponsesAreNotShared() async throws {
        try await withRedisServer { server in
            try await withTemporaryDirectory { directory in
                let noStore = CountingOrigin(noStore: true)
                let a = try Self.pipeline(
                    directory.appendingPathComponent("a"), sharedCache: server.url(), origin: noStore)
                _ = try await a.data(for: Self.url("private.bin"))
                #expect(a.sharedTierStatus?.tier.stores == 0)

                let origin = CountingOrigin()
                let small = SharedTierOptions(maxValueBytes: 64)
                let b = try Self.pipeline(
                    directory.appendingPathComponent("b"), sharedCache: server.url(), origin: origin,
                    options: small)
                _ = try await b.data(for: Self.url("big.bin"))
                #expect(b.sharedTierStatus?.tier.stores == 0)
                #expect(b.sharedTierStatus?.tier.skipped == 1)
                let c = try Self.pipeline(
                    directory.appendingPathComponent("c"), sharedCache: server.url(), origin: origin)
                #expect(try await c.data(for: Self.url("big.bin")).source == .network)
                for pipeline in [a, b, c] { await pipeline.sharedTier?.shutdown() }
            }
        }
    }

    @Test func anUnknownSchemeFailsNamingTheKnownSchemes() throws {
        var registry = PluginRegistry.standard
        try registry.install(TroveRedisPlugin())
        var configuration = PipelineConfiguration.memoryOnly
        configuration.sharedCache = URL(string: "memcached://127.0.0.1:11211")!
        let error = #expect(throws: TroveError.self) {
            try DataPipeline(registry: registry, configuration: configuration)
        }
        #expect(error?.description.contains("memcached") == true)
        #expect(error?.description.contains("redis") == true)
    }

    @Test func withoutASharedTierNothingChanges() async throws {
        try await withTemporaryDirectory { directory in
            let origin = CountingOrigin()
            let pipeline = try Self.pipeline(directory, sharedCache: nil, origin: origin)
            #expect(pipeline.sharedTier == nil)
            #expect(pipeline.sharedTierStatus == nil)
            #expect(try await pipeline.data(for: Self.url("plain.bin")).source == .network)
            #expect(origin.total == 1)
        }
    }
}
