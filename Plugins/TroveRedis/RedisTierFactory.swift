import Foundation
import NIOCore
import NIOPosix
import TroveCore

/// Makes `RedisSharedTier`s for `redis://[user:password@]host[:port][/db]` URLs.
package struct RedisTierFactory: SharedCacheTierFactory {
    /// "redis".
    package let name = "redis"
    /// ["redis"].
    package let schemes: Set<String> = ["redis"]
    private let eventLoopGroup: any EventLoopGroup

    /// A factory whose tiers run on `eventLoopGroup` (NIO's shared group by default).
    package init(eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.eventLoopGroup = eventLoopGroup
    }

    /// A tier for `url`; throws `invalidConfiguration` naming what is wrong with the URL or the options.
    package func makeTier(url: URL, options: SharedTierOptions) throws -> any SharedCacheTier {
        try makeRedisTier(url: url, options: options)
    }

    /// Like `makeTier`, typed, for callers that want Redis-only extras (`client`, `oversizedValuesSkipped`).
    package func makeRedisTier(url: URL, options: SharedTierOptions) throws -> RedisSharedTier {
        let configuration = try RedisConfiguration(url: url)
        guard options.connections >= 1 else {
            throw TroveError.invalidConfiguration(
                "shared tier connections must be at least 1 (got \(options.connections))")
        }
        guard options.maxValueBytes >= 0 else {
            throw TroveError.invalidConfiguration(
                "shared tier maxValueBytes must not be negative (got \(options.maxValueBytes))")
        }
        guard options.connectTimeout > .zero, options.commandTimeout > .zero else {
            throw TroveError.invalidConfiguration("shared tier connectTimeout and commandTimeout must be positive")
        }
        return RedisSharedTier(configuration: configuration, options: options, eventLoopGroup: eventLoopGroup)
    }
}
