import Foundation
import Testing
import Trove
import TroveRedis
import TroveS3
import TroveTestSupport

/// One SeaweedFS for the suite (starting one takes seconds); each test starts its own redis-server.
struct StackSeaweed: SuiteTrait, TestScoping {
    @TaskLocal static var current: SeaweedTestServer?

    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withSeaweedServer { server in
            try await Self.$current.withValue(server) { try await function() }
        }
    }
}

/// `redis://…` over `s3://…` as one shared tier, against a real redis-server and SeaweedFS: writes reach
/// both, reads take Redis first, an S3 hit is copied up into Redis (unless it is over Redis's limit), a Redis
/// outage is answered from S3, and forgetting reaches both.
@Suite(.serialized, StackSeaweed()) struct StackedSharedTierTests {
    var seaweed: SeaweedTestServer { StackSeaweed.current! }
    var credentials: [String: String] {
        ["AWS_ACCESS_KEY_ID": seaweed.accessKeyID, "AWS_SECRET_ACCESS_KEY": seaweed.secretAccessKey]
    }
    static let options = SharedTierOptions(connectTimeout: .milliseconds(300), commandTimeout: .seconds(2))

    func s3URL(_ prefix: String) -> URL {
        URL(string: "s3://\(seaweed.bucket)/\(prefix)?endpoint=\(seaweed.endpoint.absoluteString)&region=us-east-1")!
    }

    func pipeline(
        _ directory: URL, caches: [URL], origin: CountingOrigin, options: SharedTierOptions = Self.options
    ) throws -> DataPipeline {
        var registry = PluginRegistry.standard
        try registry.install(TroveRedisPlugin())
        try registry.install(TroveS3Plugin(environment: credentials, sources: nil))
        try registry.register(fetcher: origin)
        var configuration = PipelineConfiguration(cacheDirectory: directory)
        configuration.sharedCaches = caches
        configuration.sharedTierOptions = options
        configuration.retryPolicy = RetryPolicy(maxRetries: 0)
        return try DataPipeline(registry: registry, configuration: configuration)
    }

    /// The two tiers as seen from outside the pipelines, for checking what each holds.
    func tiers(redis: URL, s3: URL) throws -> (redis: RedisSharedTier, s3: S3SharedTier) {
        (
            try RedisTierFactory().makeRedisTier(url: redis, options: Self.options),
            try S3TierFactory(environment: credentials).makeS3Tier(url: s3, options: Self.options)
        )
    }

    static func url(_ name: String) -> URL { URL(string: "origin://fixture/\(name)")! }

    static func prefix() -> String { "stack-\(UUID().uuidString.prefix(8))" }

    @Test func writesReachBothTiersAndReadsTakeRedisFirst() async throws {
        try await withRedisServer { redis in
            try await withTemporaryDirectory { directory in
                let origin = CountingOrigin()
                let stack = [redis.url(), s3URL(Self.prefix())]
                let (hot, cold) = try tiers(redis: stack[0], s3: stack[1])
                let url = Self.url("both.bin")
                let key = DataRequest(url: url).cacheKey
                let writer = try pipeline(directory.appendingPathComponent("w"), caches: stack, origin: origin)
                #expect(try await writer.data(for: url).source == .network)
                #expect(try await hot.get(key) != nil)
                #expect(try await cold.get(key) != nil)

                let reader = try pipeline(directory.appendingPathComponent("r"), caches: stack, origin: origin)
                let response = try await reader.data(for: url)
                #expect(response.source == .shared && response.data == CountingOrigin.body(for: url))
                let status = try #require(reader.sharedTierStatus)
                #expect(status.tiers.map(\.name) == ["redis", "s3"])
                #expect(status.tiers[0].statistics.hits == 1 && status.tiers[1].statistics.hits == 0)
                #expect(status.tier.hits == 1)
                #expect(origin.total == 1)
                for pipeline in [writer, reader] { await pipeline.sharedTier?.shutdown() }
                await hot.shutdown()
                await cold.shutdown()
            }
        }
    }

    @Test func anS3OnlyValueReadThroughTheStackLandsInRedis() async throws {
        try await withRedisServer { redis in
            try await withTemporaryDirectory { directory in
                let origin = CountingOrigin()
                let s3 = s3URL(Self.prefix())
                let (hot, cold) = try tiers(redis: redis.url(), s3: s3)
                let url = Self.url("cold.bin")
                let key = DataRequest(url: url).cacheKey
                // A process on S3 alone stored it: Redis has never seen it.
                let s3Only = try pipeline(directory.appendingPathComponent("s"), caches: [s3], origin: origin)
                _ = try await s3Only.data(for: url)
                #expect(try await hot.get(key) == nil)
                #expect(try await cold.get(key) != nil)

                let reader = try pipeline(
                    directory.appendingPathComponent("r"), caches: [redis.url(), s3], origin: origin)
                #expect(try await reader.data(for: url).source == .shared)
                let status = try #require(reader.sharedTierStatus)
                #expect(status.tiers[0].statistics.misses == 1 && status.tiers[1].statistics.hits == 1)
                // Shutting down waits for the copy-up behind the answer.
                await reader.sharedTier?.shutdown()
                #expect(reader.sharedTierStatus?.tiers[0].copiedUp == 1)
                let copied = try #require(try await hot.get(key))
                let original = try await cold.get(key)
                #expect(copied == original)
                #expect(origin.total == 1)
                await s3Only.sharedTier?.shutdown()
                await hot.shutdown()
                await cold.shutdown()
            }
        }
    }

    @Test func aValueOverRedisLimitIsKeptInS3AloneAndServed() async throws {
        try await withRedisServer { redis in
            try await withTemporaryDirectory { directory in
                let origin = CountingOrigin()
                // Redis takes 200 bytes at most; every entry here is larger. S3's limit is its own.
                var small = Self.options
                small.maxValueBytes = 200
                let stack = [redis.url(), s3URL(Self.prefix())]
                let (hot, cold) = try tiers(redis: stack[0], s3: stack[1])
                let url = Self.url("large.bin")
                let key = DataRequest(url: url).cacheKey
                let writer = try pipeline(
                    directory.appendingPathComponent("w"), caches: stack, origin: origin, options: small)
                _ = try await writer.data(for: url)
                let written = try #require(writer.sharedTierStatus)
                #expect(written.tiers[0].statistics.skipped == 1 && written.tiers[0].statistics.stores == 0)
                #expect(written.tiers[1].statistics.stores == 1 && written.tiers[0].statistics.errors == 0)
                #expect(try await hot.get(key) == nil)
                #expect(try await cold.get(key) != nil)

                let reader = try pipeline(
                    directory.appendingPathComponent("r"), caches: stack, origin: origin, options: small)
                #expect(try await reader.data(for: url).data == CountingOrigin.body(for: url))
                await reader.sharedTier?.shutdown()
                // Not copied up, and not counted as an error or a skip either: it was never offered.
                let read = try #require(reader.sharedTierStatus)
                #expect(read.tiers[0].copiedUp == 0 && read.tiers[0].statistics.skipped == 0)
                #expect(read.tiers[0].statistics.errors == 0)
                #expect(try await hot.get(key) == nil)
                #expect(origin.total == 1)
                await writer.sharedTier?.shutdown()
                await hot.shutdown()
                await cold.shutdown()
            }
        }
    }

    @Test func aRedisOutageMidwayIsAnsweredFromS3() async throws {
        try await withRedisServer { redis in
            try await withTemporaryDirectory { directory in
                let origin = CountingOrigin()
                let stack = [redis.url(), s3URL(Self.prefix())]
                let before = Self.url("before.bin")
                let writer = try pipeline(directory.appendingPathComponent("w"), caches: stack, origin: origin)
                _ = try await writer.data(for: before)
                await redis.kill()

                let reader = try pipeline(directory.appendingPathComponent("r"), caches: stack, origin: origin)
                let response = try await reader.data(for: before)
                #expect(response.source == .shared && response.data == CountingOrigin.body(for: before))
                #expect(origin.total == 1)
                // What is fetched during the outage still reaches S3, and a third process is answered from it.
                let during = Self.url("during.bin")
                #expect(try await reader.data(for: during).source == .network)
                let third = try pipeline(directory.appendingPathComponent("t"), caches: stack, origin: origin)
                #expect(try await third.data(for: during).source == .shared)
                #expect(origin.total == 2)
                let status = try #require(reader.sharedTierStatus)
                #expect(status.tiers[0].statistics.errors > 0 && status.tiers[1].statistics.errors == 0)
                // The stack as a whole never failed: the pipeline's own breaker stayed closed.
                #expect(status.breaker == .closed && status.unavailable == 0)
                for pipeline in [writer, reader, third] { await pipeline.sharedTier?.shutdown() }
            }
        }
    }

    @Test func forgettingAURLRemovesItFromEveryTier() async throws {
        try await withRedisServer { redis in
            try await withTemporaryDirectory { directory in
                let origin = CountingOrigin()
                let stack = [redis.url(), s3URL(Self.prefix())]
                let (hot, cold) = try tiers(redis: stack[0], s3: stack[1])
                let url = Self.url("forget.bin")
                let key = DataRequest(url: url).cacheKey
                let pipeline = try pipeline(directory.appendingPathComponent("a"), caches: stack, origin: origin)
                _ = try await pipeline.data(for: url)
                let report = await pipeline.forget(url: url)
                #expect(report.shared == 1)
                #expect(try await hot.get(key) == nil)
                #expect(try await cold.get(key) == nil)
                let fresh = try self.pipeline(directory.appendingPathComponent("b"), caches: stack, origin: origin)
                #expect(try await fresh.data(for: url).source == .network)
                #expect(origin.total == 2)
                for pipeline in [pipeline, fresh] { await pipeline.sharedTier?.shutdown() }
                await hot.shutdown()
                await cold.shutdown()
            }
        }
    }
}
