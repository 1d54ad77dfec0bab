import TroveCore

/// Adds JPEG XL decoding and encoding (libjxl) to a registry: `try registry.install(TroveJXLPlugin())`.
public struct TroveJXLPlugin: TrovePlugin {
    /// The plugin's name in `PluginRegistry.installedPlugins`.
    public let name = "jxl"
    /// This plugin's version.
    public let version = "1.0.0"

    /// The plugin with the decoder's and encoder's defaults.
    public init() {}

    /// Registers `JXLDecoder` and `JXLEncoder` with their defaults.
    public func register(into registry: inout PluginRegistry) throws {
        try registry.register(decoder: JXLDecoder())
        try registry.register(encoder: JXLEncoder())
    }
}
