import TroveCore

/// Adds AVIF decoding and encoding (libavif) to a registry: `try registry.install(TroveAVIFPlugin())`.
public struct TroveAVIFPlugin: TrovePlugin {
    /// The plugin's name in `PluginRegistry.installedPlugins`.
    public let name = "avif"
    /// This plugin's version.
    public let version = "1.0.0"

    /// libavif's speed for encodes whose `EncodingOptions.speed` is nil: 0 (smallest files, slowest) ... 10.
    private let encoderSpeed: Int

    /// The plugin with the decoder's defaults and the encoder at `encoderSpeed` (clamped to 0...10). The
    /// default, 8, is the measured choice in docs/BENCHMARKS.md ("AVIF encoder speed"), as `trove serve
    /// --avif-speed` uses it.
    public init(encoderSpeed: Int = 8) {
        self.encoderSpeed = min(max(encoderSpeed, 0), 10)
    }

    /// Registers `AVIFDecoder` with its defaults and `AVIFEncoder` at `encoderSpeed`.
    public func register(into registry: inout PluginRegistry) throws {
        try registry.register(decoder: AVIFDecoder())
        try registry.register(encoder: AVIFEncoder(defaultSpeed: encoderSpeed))
    }
}
