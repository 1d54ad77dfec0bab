import TroveCore

/// Adds the Redis shared cache tier (`redis://` URLs) to a registry: `try registry.install(TroveRedisPlugin())`.
public struct TroveRedisPlugin: TrovePlugin {
    /// "redis".
    public let name = "redis"
    /// The plugin's version.
    public let version = "1.0.0"

    /// The plugin.
    public init() {}

    /// Registers `RedisTierFactory`.
    public func register(into registry: inout PluginRegistry) throws {
        try registry.register(sharedTier: RedisTierFactory())
    }
}
