import Foundation
import TroveCore

/// Gaussian blur of standard deviation `sigma` pixels, as two separable passes (across, then down).
///
/// The kernel reaches 4 sigma each side (as scipy's `gaussian_filter` does by default) and is
/// normalised to sum 1; beyond the image the edge pixel repeats (edges clamped), so borders neither
/// darken nor fade. Colours are blurred premultiplied by alpha, so transparent pixels leave no fringes.
public struct BlurTransformer: ImageTransformer, Equatable {
    /// Largest sigma accepted: a kernel of 2 x 4 x 250 + 1 taps is already far beyond any practical blur.
    package static let maximumSigma = 250.0

    /// Standard deviation of the Gaussian in pixels, 0...`maximumSigma`; below 0.125 the kernel is one tap
    /// and the image is left as is.
    package let sigma: Double

    /// `sigma` is clamped to 0...maximumSigma (the "blur" factory rejects values outside with an error).
    public init(sigma: Double) {
        self.sigma = sigma.isNaN ? 0 : min(max(sigma, 0), Self.maximumSigma)
    }

    /// "blur(sigma=S)", e.g. "blur(sigma=2.0)".
    public var identifier: String { "blur(sigma=\(sigma))" }

    /// Weights for offsets -radius...radius.
    var kernel: [Float] {
        let radius = Int(4 * sigma + 0.5)
        let weights = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = weights.reduce(0, +)
        return weights.map { Float($0 / total) }
    }

    /// Blurs the image and every animation frame; the result is RGBA8. Throws `imageTooLarge` when the image is
    /// too large for the float working copy within `DecodingLimits.default`.
    public func transform(_ image: Image) throws -> Image {
        let kernel = kernel
        guard kernel.count > 1, image.width > 0, image.height > 0 else { return image }
        // The horizontal pass keeps the whole image as premultiplied Floats (16 bytes a pixel).
        try DecodingLimits.default.check(width: image.width, height: image.height, bytesPerPixel: 16)
        let width = image.width, height = image.height
        return try image.mappingEveryFrame { src, dst in
            kernel.withUnsafeBufferPointer { weights in
                Self.blur(src, width: width, height: height, weights: weights, into: dst)
            }
        }
    }

    private static func blur(
        _ src: UnsafeBufferPointer<UInt8>, width: Int, height: Int,
        weights: UnsafeBufferPointer<Float>, into dst: UnsafeMutableBufferPointer<UInt8>
    ) {
        let radius = weights.count / 2
        let across = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: width * height)
        // One source row, premultiplied, with `radius` copies of the edge pixel on each side.
        let line = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: width + 2 * radius)
        let sums = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: width)
        defer {
            across.deallocate()
            line.deallocate()
            sums.deallocate()
        }
        for y in 0..<height {
            for x in 0..<width {
                line[radius + x] = premultiplied(src, at: (y * width + x) * 4)
            }
            for k in 0..<radius {
                line[k] = line[radius]
                line[radius + width + k] = line[radius + width - 1]
            }
            let row = across + y * width
            for x in 0..<width {
                var even = SIMD4<Float>.zero, odd = SIMD4<Float>.zero
                let taps = line + x
                var k = 0
                while k + 1 < weights.count {
                    even += taps[k] * weights[k]
                    odd += taps[k + 1] * weights[k + 1]
                    k += 2
                }
                if k < weights.count { even += taps[k] * weights[k] }
                row[x] = even + odd
            }
        }
        // Down the columns, a whole row at a time so memory is read in order.
        for y in 0..<height {
            sums.initialize(repeating: .zero, count: width)
            for k in 0..<weights.count {
                let sourceRow = across + min(max(y + k - radius, 0), height - 1) * width
                let weight = weights[k]
                for x in 0..<width { sums[x] += sourceRow[x] * weight }
            }
            for x in 0..<width {
                let pixel = straightRGBA8(sums[x])
                let i = (y * width + x) * 4
                dst[i] = pixel[0]
                dst[i + 1] = pixel[1]
                dst[i + 2] = pixel[2]
                dst[i + 3] = pixel[3]
            }
        }
    }

    @inline(__always)
    private static func premultiplied(_ src: UnsafeBufferPointer<UInt8>, at i: Int) -> SIMD4<Float> {
        let alpha = Float(src[i + 3])
        let scale = alpha / 255
        return SIMD4(Float(src[i]) * scale, Float(src[i + 1]) * scale, Float(src[i + 2]) * scale, alpha)
    }

    @inline(__always)
    private static func straightRGBA8(_ pixel: SIMD4<Float>) -> SIMD4<UInt8> {
        let alpha = pixel[3]
        guard alpha >= 0.5 else { return .zero }
        let scale = 255 / alpha
        return SIMD4(byte(pixel[0] * scale), byte(pixel[1] * scale), byte(pixel[2] * scale), byte(alpha))
    }

    @inline(__always)
    private static func byte(_ value: Float) -> UInt8 {
        UInt8(min(max(value, 0), 255) + 0.5)
    }
}
