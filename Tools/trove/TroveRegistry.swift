import Trove
import TroveJPEG
import TroveRedis

/// The registry the CLI composes its pipelines from: the standard set plus the plugins the tool ships.
enum TroveRegistry {
    static func make() throws -> PluginRegistry {
        var registry = PluginRegistry.standard
        try registry.install(TroveJPEGPlugin())
        try registry.install(TroveRedisPlugin())
        return registry
    }
}
