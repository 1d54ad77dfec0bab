import TroveCore

/// Adds JPEG decoding and encoding (libjpeg-turbo) to a registry: `try registry.install(TroveJPEGPlugin())`.
public struct TroveJPEGPlugin: TrovePlugin {
    public let name = "jpeg"
    public let version = "1.0.0"

    public init() {}

    public func register(into registry: inout PluginRegistry) throws {
        try registry.register(decoder: JPEGDecoder())
        try registry.register(encoder: JPEGEncoder())
    }
}
