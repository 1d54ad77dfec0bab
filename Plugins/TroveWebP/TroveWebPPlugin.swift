import TroveCore

/// Adds WebP decoding and encoding (libwebp; stills and animations) to a registry:
/// `try registry.install(TroveWebPPlugin())`.
public struct TroveWebPPlugin: TrovePlugin {
    /// "webp".
    public let name = "webp"
    /// This plugin's version.
    public let version = "1.0.0"

    /// The plugin; it has no settings.
    public init() {}

    /// Registers `WebPDecoder` and `WebPEncoder`.
    public func register(into registry: inout PluginRegistry) throws {
        try registry.register(decoder: WebPDecoder())
        try registry.register(encoder: WebPEncoder())
    }
}
