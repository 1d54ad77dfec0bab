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
        #expect(
            throws: ServerConfigurationError(
                "TROVE_SHARED_CACHE=not a url is not a URL; give redis://[user:pass@]host:port[/db]")
        ) {
            try ServerConfiguration(environment: ["TROVE_SHARED_CACHE": "not a url"])
        }
        #expect(
            throws: ServerConfigurationError(
                "--shared-cache redis: is not a URL; give redis://[user:pass@]host:port[/db]")
        ) {
            try ServerConfiguration(arguments: ["--shared-cache", "redis:"])
        }
    }
}
