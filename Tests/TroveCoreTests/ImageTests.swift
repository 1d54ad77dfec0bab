import Testing
import TroveCore

@Suite struct ImageTests {
    @Test func grayConvertsToOpaqueRGBA() {
        let gray = Image(width: 2, height: 1, pixelFormat: .gray8, pixels: [10, 200])
        let rgba = gray.convertedToRGBA8()
        #expect(rgba.pixels == [10, 10, 10, 255, 200, 200, 200, 255])
        #expect(rgba.cost == 8)
    }

    @Test func paddedRowsArePacked() {
        // 1x2 RGBA with 8-byte rows: the padding must not leak into the packed copy.
        let padded = Image(
            width: 1, height: 2, bytesPerRow: 8, pixels: [1, 2, 3, 4, 99, 99, 99, 99, 5, 6, 7, 8, 99, 99, 99, 99])
        #expect(padded.convertedToRGBA8().pixels == [1, 2, 3, 4, 5, 6, 7, 8])
    }
}
