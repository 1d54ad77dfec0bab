import TroveCore

/// Multiplies every pixel's alpha by `alpha` (0 makes the image invisible, 1 leaves it as it is).
public struct OpacityTransformer: ImageTransformer, Equatable {
    /// In 0...1.
    package let alpha: Double

    /// `alpha` is clamped to 0...1 (the "opacity" factory rejects values outside with an error instead).
    public init(alpha: Double) {
        self.alpha = alpha.isNaN ? 1 : min(max(alpha, 0), 1)
    }

    /// "opacity(alpha=A)", e.g. "opacity(alpha=0.5)".
    public var identifier: String { "opacity(alpha=\(alpha))" }

    /// The image and frames (RGBA8) with alpha scaled by `alpha`, rounded; colours are kept. With `alpha` 1 the
    /// image is returned as is.
    public func transform(_ image: Image) throws -> Image {
        guard alpha < 1 else { return image }
        // Alpha times factor / 65536 with rounding: one integer multiply per pixel.
        let factor = UInt32((alpha * 65536).rounded())
        return try image.mappingEveryFrame { src, dst in
            for i in stride(from: 0, to: src.count, by: 4) {
                dst[i] = src[i]
                dst[i + 1] = src[i + 1]
                dst[i + 2] = src[i + 2]
                dst[i + 3] = UInt8(truncatingIfNeeded: (UInt32(src[i + 3]) * factor + 32768) >> 16)
            }
        }
    }
}
