import Trove

/// The registry the CLI composes its pipelines from: the standard set plus the plugins the tool ships.
enum TroveRegistry {
    static func make() throws -> PluginRegistry {
        PluginRegistry.standard
    }
}
