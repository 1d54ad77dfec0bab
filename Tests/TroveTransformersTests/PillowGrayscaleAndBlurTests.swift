import Testing
import TroveCore
import TroveTestSupport
import TroveTransformers

/// Grayscale against Pillow's `convert("L")` / `convert("LA")`; blur against scipy's gaussian_filter.
@Suite struct PillowGrayscaleAndBlurTests {
    @Test func grayscaleIsWithinOneOfPillowsL() throws {
        let output = try GrayscaleTransformer().transform(Fixtures.photo("chelsea.png"))
        let reference = try Fixtures.pillow("grayscale-chelsea-L.png")
        #expect(output.pixelFormat == .rgba8)
        #expect(maximumDifference(output, reference, channels: [0, 1, 2]) <= 1)
        #expect(sameChannel(3, output, try Fixtures.photo("chelsea.png")), "opaque stays opaque")
    }

    @Test func grayscaleKeepsAlphaLikePillowsLA() throws {
        let input = try Fixtures.photo("badge.png")
        let output = try GrayscaleTransformer().transform(input)
        let reference = try Fixtures.pillow("grayscale-badge-LA.png")
        // Pillow's LA keeps the luma of invisible pixels too, so every byte is comparable.
        #expect(maximumDifference(output, reference) <= 1)
        #expect(sameChannel(3, output, input), "alpha is kept")
    }

    @Test(arguments: [0.8, 2.0, 5.0])
    func blurMatchesAGaussianOfTheSameSigma(sigma: Double) throws {
        let input = try Fixtures.pillow("in-blur.png")
        let output = try BlurTransformer(sigma: sigma).transform(input)
        let reference = try Fixtures.pillow("blur-sigma\(sigma == 2 ? "2" : sigma == 5 ? "5" : "0.8").png")
        let value = psnr(output, reference)
        #expect(value >= 30, "PSNR \(value) dB")
        // Sanity: the blur did something (the reference is far from the input).
        #expect(psnr(input, reference) < value)
    }
}
