import TroveCore

/// Replaces colour with its ITU-R BT.601 luma, Y = 0.299 R + 0.587 G + 0.114 B, keeping alpha.
///
/// The output stays RGBA8 (R = G = B = Y) so that alpha survives and every later transform gets the
/// common format; a gray8 image is already gray and is returned as it is. The weights are used in
/// 16-bit fixed point (19595, 38470, 7471, summing to 65536), so white stays 255 and black 0.
public struct GrayscaleTransformer: ImageTransformer, Equatable {
    /// The grayscale transform; it has no settings.
    public init() {}

    /// "grayscale".
    public var identifier: String { "grayscale" }

    /// The image and its frames with R = G = B = luma; alpha is kept. A gray8 image is returned as is.
    public func transform(_ image: Image) throws -> Image {
        guard image.pixelFormat == .rgba8 else { return image }
        return try image.mappingEveryFrame { src, dst in
            for i in stride(from: 0, to: src.count, by: 4) {
                let luma =
                    (19595 * UInt32(src[i]) + 38470 * UInt32(src[i + 1]) + 7471 * UInt32(src[i + 2])
                        + 32768) >> 16
                let y = UInt8(truncatingIfNeeded: luma)
                dst[i] = y
                dst[i + 1] = y
                dst[i + 2] = y
                dst[i + 3] = src[i + 3]
            }
        }
    }
}
