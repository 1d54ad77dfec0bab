import Foundation
import Testing
import TroveCore
import TroveJPEG
import TroveTestSupport

/// Shrink-on-load: with a minimum size the decoder uses libjpeg-turbo's scaled IDCT and returns the
/// smallest M/8 scale that still covers the minimum, never more than the stored size.
@Suite struct JPEGShrinkOnLoadTests {
    let decoder = JPEGDecoder()

    struct Case: Sendable, CustomTestStringConvertible {
        let minimum: PixelSize
        let expected: PixelSize
        var testDescription: String { "at least \(minimum) gives \(expected)" }
    }

    // rocket.jpg is 640x427; libjpeg rounds each scaled side up (427 / 8 = 53.4 gives 54).
    @Test(arguments: [
        Case(minimum: PixelSize(width: 80, height: 54), expected: PixelSize(width: 80, height: 54)),  // 1/8
        Case(minimum: PixelSize(width: 10, height: 55), expected: PixelSize(width: 160, height: 107)),  // 2/8
        Case(minimum: PixelSize(width: 81, height: 1), expected: PixelSize(width: 160, height: 107)),  // 2/8
        Case(minimum: PixelSize(width: 300, height: 200), expected: PixelSize(width: 320, height: 214)),  // 4/8
        Case(minimum: PixelSize(width: 330, height: 10), expected: PixelSize(width: 400, height: 267)),  // 5/8
        Case(minimum: PixelSize(width: 600, height: 400), expected: PixelSize(width: 640, height: 427)),  // 8/8
        Case(minimum: PixelSize(width: 641, height: 1), expected: PixelSize(width: 640, height: 427)),  // never up
        Case(minimum: PixelSize(width: 5000, height: 5000), expected: PixelSize(width: 640, height: 427))
    ])
    func decodesAtTheSmallestScaleThatCoversTheMinimum(_ c: Case) throws {
        let image = try decoder.decode(try JPEGFixtures.rocket(), options: DecodingOptions(minimumSize: c.minimum))
        #expect(image.width == c.expected.width && image.height == c.expected.height)
        // The buffer the decoder produced is the scaled one, not the stored size.
        #expect(image.pixels.count == c.expected.width * c.expected.height * 4)
        #expect(image.bytesPerRow == c.expected.width * 4 && image.sourceFormat == .jpeg)
    }

    @Test(arguments: [2, 4, 8])
    func pixelsMatchAFullDecodeBoxReduced(factor: Int) throws {
        let data = try JPEGFixtures.rocket()
        let full = try decoder.decode(data, limits: .default)
        let minimum = PixelSize(width: (full.width + factor - 1) / factor, height: (full.height + factor - 1) / factor)
        let scaled = try decoder.decode(data, options: DecodingOptions(minimumSize: minimum))
        let reference = boxReduced(full, by: factor)
        try #require(scaled.width == reference.width && scaled.height == reference.height)
        // The scaled IDCT is a block average computed in the DCT domain: Pillow's draft() of the same file
        // against reduce() gives 53, 53 and 48 dB; ask for 45 dB.
        let value = psnr(scaled, reference)
        #expect(value >= 45, "PSNR \(value) dB at 1/\(factor)")
    }

    @Test func withoutAMinimumDecodesAtFullSize() throws {
        let data = try JPEGFixtures.rocket()
        let viaOptions = try decoder.decode(data, options: DecodingOptions())
        let plain = try decoder.decode(data, limits: .default)
        #expect(viaOptions == plain)
        #expect(plain.width == 640 && plain.height == 427)
    }

    @Test func keepsOrientationAtAReducedSize() throws {
        let image = try decoder.decode(
            try JPEGFixtures.jpeg("orientation6"),
            options: DecodingOptions(minimumSize: PixelSize(width: 6, height: 4)))
        #expect(image.orientation == .right)
        #expect(image.width == 6 && image.height == 4)  // 48x32 at 1/8
    }

    @Test func scaledGrayAndCMYKAreRGBA() throws {
        for name in ["gray", "cmyk"] {
            let image = try decoder.decode(
                try JPEGFixtures.jpeg(name),
                options: DecodingOptions(minimumSize: PixelSize(width: 40, height: 27)))
            #expect(image.width == 40 && image.height == 27, "\(name)")  // 160x107 at 1/4
            #expect(stride(from: 3, to: image.pixels.count, by: 4).allSatisfy { image.pixels[$0] == 255 })
        }
    }

    @Test func infoReadsTheSizeAndOrientationFromTheHeader() throws {
        #expect(try decoder.info(try JPEGFixtures.rocket()) == ImageInfo(format: .jpeg, width: 640, height: 427))
        let turned = try #require(try decoder.info(try JPEGFixtures.jpeg("orientation6")))
        #expect(turned == ImageInfo(format: .jpeg, width: 48, height: 32, orientation: .right))
        #expect(turned.displayedSize == PixelSize(width: 32, height: 48))
        #expect(throws: TroveError.self) { try decoder.info(Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00])) }
    }

    @Test func limitsApplyToTheStoredSize() throws {
        #expect(throws: TroveError.imageTooLarge(width: 640, height: 427, limit: 10_000)) {
            try decoder.decode(
                try JPEGFixtures.rocket(),
                options: DecodingOptions(
                    limits: DecodingLimits(maxPixels: 10_000),
                    minimumSize: PixelSize(width: 80, height: 54)))
        }
    }
}

/// Each `factor x factor` block averaged (rounded), partial blocks at the edges over the pixels they hold:
/// what Pillow's `Image.reduce` does.
func boxReduced(_ image: Image, by factor: Int) -> Image {
    let width = (image.width + factor - 1) / factor, height = (image.height + factor - 1) / factor
    var out = [UInt8](repeating: 0, count: width * height * 4)
    for by in 0..<height {
        for bx in 0..<width {
            var sums = [0, 0, 0, 0], count = 0
            for y in by * factor..<min((by + 1) * factor, image.height) {
                for x in bx * factor..<min((bx + 1) * factor, image.width) {
                    for c in 0..<4 { sums[c] += Int(image.pixels[y * image.bytesPerRow + x * 4 + c]) }
                    count += 1
                }
            }
            for c in 0..<4 { out[(by * width + bx) * 4 + c] = UInt8((sums[c] + count / 2) / count) }
        }
    }
    return Image(width: width, height: height, pixels: out, sourceFormat: image.sourceFormat)
}
