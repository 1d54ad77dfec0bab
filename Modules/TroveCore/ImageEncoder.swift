import Foundation

/// Turns an `Image` into bytes of one format.
public protocol ImageEncoder: Sendable {
    /// The registry name, e.g. "png".
    var name: String { get }
    var format: ImageFormat { get }
    func encode(_ image: Image, options: EncodingOptions) throws -> Data
}

/// Knobs an encoder may honour; each ignores the ones that do not apply to its format.
public struct EncodingOptions: Sendable, Equatable {
    /// Lossy quality, 0...1.
    public var quality: Double
    /// Lossless compression effort, 0...9 (zlib levels).
    public var compressionLevel: Int

    public init(quality: Double = 0.85, compressionLevel: Int = 6) {
        self.quality = quality
        self.compressionLevel = compressionLevel
    }
}
