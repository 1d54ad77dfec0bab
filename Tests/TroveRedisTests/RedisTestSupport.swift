import Foundation
import TroveCore
import TroveTestSupport

@testable import TroveRedis

extension RedisTestServer {
    /// A client logged in with the server's password, for setting things up behind the tier's back.
    nonisolated func adminClient() -> RedisClient {
        RedisClient(
            configuration: RedisConfiguration(host: "127.0.0.1", port: port, password: password),
            options: SharedTierOptions(connections: 1))
    }
}

/// Runs `body` with a tier on `url` and shuts the tier down afterwards.
func withTier<T: Sendable>(
    _ url: URL, options: SharedTierOptions = SharedTierOptions(),
    _ body: (RedisSharedTier) async throws -> T
) async throws -> T {
    let tier = try RedisTierFactory().makeRedisTier(url: url, options: options)
    return try await withCleanup {
        try await body(tier)
    } finally: {
        await tier.shutdown()
    }
}
