import TroveCore

/// Adds AVIF decoding and encoding (libavif) to a registry: `try registry.install(TroveAVIFPlugin())`.
public struct TroveAVIFPlugin: TrovePlugin {
    /// The plugin's name in `PluginRegistry.installedPlugins`.
    public let name = "avif"
    /// This plugin's version.
    public let version = "1.0.0"

    /// The plugin with the decoder's and encoder's defaults.
    public init() {}

    /// Registers `AVIFDecoder` and `AVIFEncoder` with their defaults.
    public func register(into registry: inout PluginRegistry) throws {
        try registry.register(decoder: AVIFDecoder())
        try registry.register(encoder: AVIFEncoder())
    }
}
