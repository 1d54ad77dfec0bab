import TroveCore

/// Adds JPEG decoding and encoding (libjpeg-turbo) to a registry: `try registry.install(TroveJPEGPlugin())`.
public struct TroveJPEGPlugin: TrovePlugin {
    /// "jpeg".
    public let name = "jpeg"
    /// This plugin's version.
    public let version = "1.0.0"

    /// The plugin; it has no settings.
    public init() {}

    /// Registers `JPEGDecoder` and `JPEGEncoder`.
    public func register(into registry: inout PluginRegistry) throws {
        try registry.register(decoder: JPEGDecoder())
        try registry.register(encoder: JPEGEncoder())
    }
}
