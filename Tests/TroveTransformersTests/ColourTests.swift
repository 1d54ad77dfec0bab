import Testing
import TroveCore
import TroveTransformers

@Suite struct ColourTests {
    private let image = makeImage(width: 3, height: 1) { x, _ in
        [[0, 0, 0, 255], [200, 100, 50, 128], [255, 255, 255, 0]][x]
    }

    @Test func opaqueTintPaintsTheColourAndKeepsAlpha() throws {
        let output = try TintTransformer(red: 255, green: 0, blue: 0).transform(image)
        #expect(output.pixels == [255, 0, 0, 255, 255, 0, 0, 128, 255, 0, 0, 0])
    }

    @Test func halfTintMixesHalfway() throws {
        let tint = try #require(TintTransformer(hex: "#0000FF80"))
        let output = try tint.transform(image)
        // (c * 127 + 255 * 128) / 255 for blue, c * 127 / 255 otherwise, rounded.
        #expect(output.pixels == [0, 0, 128, 255, 100, 50, 153, 128, 127, 127, 255, 0])
    }

    @Test(arguments: ["ff0000", "#FF0000", "#ff0000ff"])
    func tintSpellingsShareAnIdentifier(hex: String) throws {
        #expect(try #require(TintTransformer(hex: hex)).identifier == "tint(color=#ff0000ff)")
    }

    @Test(arguments: ["#ff00", "#gg0000", "#ff00000", "red", "", "#+f0000"])
    func tintRejectsBadColours(hex: String) {
        #expect(TintTransformer(hex: hex) == nil)
    }

    @Test func opacityScalesAlphaOnly() throws {
        let output = try OpacityTransformer(alpha: 0.5).transform(image)
        #expect(output.pixels == [0, 0, 0, 128, 200, 100, 50, 64, 255, 255, 255, 0])
        #expect(
            try OpacityTransformer(alpha: 0).transform(image).pixels == [0, 0, 0, 0, 200, 100, 50, 0, 255, 255, 255, 0])
        #expect(try OpacityTransformer(alpha: 1).transform(image) == image)
        #expect(OpacityTransformer(alpha: 0.25).identifier == "opacity(alpha=0.25)")
    }

    @Test func grayscaleOfGrayIsUnchangedAndWhiteStaysWhite() throws {
        let gray = Image(width: 2, height: 1, pixelFormat: .gray8, pixels: [3, 250])
        #expect(try GrayscaleTransformer().transform(gray) == gray)
        let output = try GrayscaleTransformer().transform(image)
        #expect(output.pixels == [0, 0, 0, 255, 124, 124, 124, 128, 255, 255, 255, 0])
    }
}
