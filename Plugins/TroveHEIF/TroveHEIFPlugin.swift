import TroveCore

/// Adds HEIC decoding (libheif with libde265) to a registry, and HEIC encoding when libheif has an HEVC
/// encoder (x265): `try registry.install(TroveHEIFPlugin())`.
public struct TroveHEIFPlugin: TrovePlugin {
    /// The plugin's name in `PluginRegistry.installedPlugins`.
    public let name = "heif"
    /// This plugin's version.
    public let version = "1.0.0"

    /// The plugin with the decoder's and encoder's defaults.
    public init() {}

    /// Whether this machine's libheif can write HEVC, so `HEIFEncoder` is registered. Debian's libheif1
    /// links x265; a build without it decodes only, and `trove plugins` says so.
    package static var canEncode: Bool { Libheif.hasHEVCEncoder }

    /// Registers `HEIFDecoder`, and `HEIFEncoder` when `canEncode`, with their defaults.
    public func register(into registry: inout PluginRegistry) throws {
        try registry.register(decoder: HEIFDecoder())
        if Self.canEncode {
            try registry.register(encoder: HEIFEncoder())
        }
    }
}
