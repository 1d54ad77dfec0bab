import Foundation

/// Turns an `Image` into bytes of one format.
public protocol ImageEncoder: Sendable {
    /// The registry name, e.g. "png".
    var name: String { get }
    /// The format this encoder writes; `PluginRegistry.encoder(for:)` finds encoders by it.
    var format: ImageFormat { get }
    /// Encodes the image (every frame, for a format that animates) with the options that apply.
    func encode(_ image: Image, options: EncodingOptions) throws -> Data
}

/// Knobs an encoder may honour; each ignores the ones that do not apply to its format.
public struct EncodingOptions: Sendable, Hashable, Codable {
    /// Lossy quality, 0...1 (0.85 is libjpeg's and libwebp's 85).
    public var quality: Double
    /// Lossless compression effort, 0...9 (zlib levels).
    public var compressionLevel: Int
    /// Encode without loss where the format can (WebP lossless, AVIF 4:4:4 at full quality).
    public var lossless: Bool
    /// Encoder speed where the format has one (AVIF 0 slowest ... 10 fastest); nil is the encoder's default.
    public var speed: Int?

    /// Options with the given knobs; the defaults are quality 0.85, compression level 6, lossy, and the
    /// encoder's own speed.
    public init(quality: Double = 0.85, compressionLevel: Int = 6, lossless: Bool = false, speed: Int? = nil) {
        self.quality = quality
        self.compressionLevel = compressionLevel
        self.lossless = lossless
        self.speed = speed
    }

    /// Every knob in a fixed order, for cache keys: two option values that encode differently never share one.
    package var identifier: String {
        "quality=\(quality),level=\(compressionLevel),lossless=\(lossless),speed=\(speed.map(String.init) ?? "default")"
    }
}
