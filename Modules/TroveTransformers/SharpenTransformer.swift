import TroveCore

/// Unsharp masking: each colour moves away from its Gaussian-blurred surroundings by `amount` times the
/// difference, so edges gain contrast and flat areas stay as they are. imgproxy's `sharpen` (sigma is
/// the blur's standard deviation in pixels). Alpha is kept.
public struct SharpenTransformer: ImageTransformer, Equatable {
    /// Largest sigma accepted.
    package static let maximumSigma = 50.0

    /// Standard deviation of the blur that is subtracted, 0...`maximumSigma`.
    package let sigma: Double
    /// How much of the difference is added back (1 doubles local contrast at an edge).
    package let amount: Double

    /// `sigma` is clamped to 0...maximumSigma and `amount` to 0...10.
    public init(sigma: Double, amount: Double = 1) {
        self.sigma = sigma.isNaN ? 0 : min(max(sigma, 0), Self.maximumSigma)
        self.amount = amount.isNaN ? 1 : min(max(amount, 0), 10)
    }

    /// "sharpen(sigma=S,amount=A)".
    public var identifier: String { "sharpen(sigma=\(sigma),amount=\(amount))" }

    /// The sharpened image and frames, as RGBA8.
    public func transform(_ image: Image) throws -> Image {
        guard sigma > 0, amount > 0, image.width > 0, image.height > 0 else { return image }
        let original = image.convertedToRGBA8()
        let blurred = try BlurTransformer(sigma: sigma).transform(original)
        guard blurred.width == original.width, blurred.height == original.height else { return image }
        let scale = Int((amount * 256).rounded())
        func sharpened(_ pixels: [UInt8], _ smooth: [UInt8]) -> [UInt8] {
            var out = pixels
            out.withUnsafeMutableBufferPointer { out in
                smooth.withUnsafeBufferPointer { smooth in
                    var i = 0
                    while i + 3 < out.count {
                        for channel in 0..<3 {
                            let value = Int(out[i + channel])
                            let detail = value - Int(smooth[i + channel])
                            out[i + channel] = UInt8(clamping: value + (detail * scale + 128) >> 8)
                        }
                        i += 4
                    }
                }
            }
            return out
        }
        var result = original
        result.pixels = sharpened(original.pixels, blurred.pixels)
        if original.frames.count == blurred.frames.count {
            result.frames = zip(original.frames, blurred.frames).map { frame, smooth in
                AnimationFrame(pixels: sharpened(frame.pixels, smooth.pixels), delay: frame.delay)
            }
        }
        return result
    }
}
