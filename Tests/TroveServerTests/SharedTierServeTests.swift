import FixtureServer
import Foundation
import HummingbirdTesting
import Logging
import Testing
import Trove
import TroveRedis
import TroveServer
import TroveTestSupport

/// Two `trove serve` processes' worth of servers, each with its own disk, sharing one real redis-server:
/// the origin sees a source once, and the second server transforms it from the shared tier.
@Suite struct SharedTierServeTests {
    static let signer = URLSigner.test

    static func registry() throws -> PluginRegistry {
        var registry = try ServerHarness.registry()
        try registry.install(TroveRedisPlugin())
        return registry
    }

    @Test func aSecondServerTakesTheSourceFromTheSharedTier() async throws {
        try await withRedisServer { redis in
            let origin = try FixtureServer(serving: TestImages.folder, under: "/images/")
            let first = try await ServerHarness.start(origin: origin, registry: try Self.registry()) { configuration in
                configuration.keys = [Self.signer.key]
                configuration.salts = [Self.signer.salt]
                configuration.pipeline.sharedCache = redis.url()
            }
            defer { Task { await first.stop() } }
            let secondDirectory = FileManager.default.temporaryDirectory
                .appendingPathComponent("trove-serve-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: secondDirectory) }
            var configuration = ServerConfiguration()
            configuration.port = 0
            configuration.pipeline.cacheDirectory = secondDirectory
            configuration.allowLoopbackSources = true
            configuration.logLevel = .error
            configuration.keys = [Self.signer.key]
            configuration.salts = [Self.signer.salt]
            configuration.pipeline.sharedCache = redis.url()
            var logger = Logger(label: "trove.serve.test")
            logger.logLevel = .error
            let second = try ImageProxyServer(
                configuration: configuration, registry: try Self.registry(), logger: logger)
            let secondPort = try await second.start()

            let path = Self.signer.signed(
                "/rs:fit:100:100/plain/\(origin.url("/images/chelsea.png").absoluteString)@png")
            let fromFirst = try await first.request(path)
            let fromSecond = try await TestClient.withClient(host: "127.0.0.1", port: secondPort) { client in
                try await client.execute(TestClient.Request(path, method: .get))
            }
            await second.stop()
            #expect(fromFirst.status == .ok && fromSecond.status == .ok)
            #expect(fromFirst.bytes == fromSecond.bytes && !fromFirst.bytes.isEmpty)
            #expect(origin.requestCount(for: "/images/chelsea.png") == 1)
            #expect(second.pipeline.sharedTierStatus?.tier.hits == 1)
        }
    }

    @Test func aSharedCacheThatIsNoURLIsAConfigurationError() throws {
        let give =
            "give redis://[user:pass@]host:port[/db] or s3://bucket[/prefix]?endpoint=URL, several separated by "
            + "commas or spaces"
        #expect(throws: ServerConfigurationError("TROVE_SHARED_CACHE=not a url is not a URL ('not'); \(give)")) {
            try ServerConfiguration(environment: ["TROVE_SHARED_CACHE": "not a url"])
        }
        #expect(throws: ServerConfigurationError("--shared-cache redis: is not a URL; \(give)")) {
            try ServerConfiguration(arguments: ["--shared-cache", "redis:"])
        }
    }

    @Test func sharedCachesStackFromRepeatedFlagsOrAListInTheVariable() throws {
        let urls = ["redis://127.0.0.1:6379/0", "s3://bucket/results?endpoint=http://127.0.0.1:8333&region=r"]
        let flags = try ServerConfiguration(arguments: ["--shared-cache", urls[0], "--shared-cache", urls[1]])
        #expect(flags.pipeline.sharedCaches.map(\.absoluteString) == urls)
        for list in [urls.joined(separator: ","), urls.joined(separator: " "), urls.joined(separator: ", ")] {
            let variable = try ServerConfiguration(environment: ["TROVE_SHARED_CACHE": list])
            #expect(variable.pipeline.sharedCaches.map(\.absoluteString) == urls, "\(list)")
        }
        // The single form as before; the flags win over the variable.
        let single = try ServerConfiguration(environment: ["TROVE_SHARED_CACHE": urls[0]])
        #expect(single.pipeline.sharedCache?.absoluteString == urls[0] && single.pipeline.sharedCaches.count == 1)
        let both = try ServerConfiguration(
            environment: ["TROVE_SHARED_CACHE": urls.joined(separator: ",")], arguments: ["--shared-cache", urls[1]])
        #expect(both.pipeline.sharedCaches.map(\.absoluteString) == [urls[1]])
    }
}
