import Testing
import TroveCore
import TroveTestSupport
import TroveTransformers

/// Fill against Pillow's `ImageOps.fit(image, size, BICUBIC)`, which resamples the centred box with the
/// target's aspect ratio at its fractional edges (`Image.resize(size, BICUBIC, box=...)`); a crop to
/// whole pixels first was about 29 dB from it on some photos. The issue asks for 40 dB or better.
@Suite struct PillowFillTests {
    @Test(arguments: [
        ("chelsea.png", "chelsea", 64, 64), ("coffee.png", "coffee", 97, 41),
        ("chelsea.png", "chelsea", 37, 90)
    ])
    func matchesImageOpsFitAtFortyDecibels(input: String, stem: String, width: Int, height: Int) throws {
        let source = try Fixtures.photo(input)
        let reference = try Fixtures.pillow("fit-\(stem)-bicubic-\(width)x\(height).png")
        let output = try ResizeTransformer(width: width, height: height, mode: .fill, filter: .bicubic).transform(
            source)
        try #require(output.width == reference.width && output.height == reference.height)
        let value = psnr(output, reference)
        #expect(value >= 40, "PSNR \(value) dB")
    }
}
