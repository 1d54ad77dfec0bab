import Trove
import TroveAVIF
import TroveColor
import TroveHEIF
import TroveJPEG
import TroveJXL
import TroveRedis
import TroveS3
import TroveWebP

/// The registry the CLI composes its pipelines from: the standard set plus the plugins the tool ships.
enum TroveRegistry {
    static func make() throws -> PluginRegistry {
        var registry = PluginRegistry.standard
        try registry.install(TroveJPEGPlugin())
        try registry.install(TroveRedisPlugin())
        try registry.install(TroveS3Plugin())
        try registry.install(TroveWebPPlugin())
        try registry.install(TroveAVIFPlugin())
        try registry.install(TroveJXLPlugin())
        try registry.install(TroveHEIFPlugin())
        try registry.install(TroveColorPlugin())
        return registry
    }
}
