import Testing
import TroveCore

@Suite struct ImageTests {
    @Test func grayConvertsToOpaqueRGBA() {
        let gray = Image(width: 2, height: 1, pixelFormat: .gray8, pixels: [10, 200])
        let rgba = gray.convertedToRGBA8()
        #expect(rgba.pixels == [10, 10, 10, 255, 200, 200, 200, 255])
        #expect(rgba.cost == rgba.pixels.capacity)
        #expect(rgba.cost >= 8)
    }

    @Test func costCountsEveryBufferOnceAsAllocated() {
        var canvas = [UInt8](repeating: 7, count: 16)
        canvas.reserveCapacity(64)
        let other = [UInt8](repeating: 9, count: 16)
        var image = Image(width: 2, height: 2, pixels: canvas)
        // The last frame shares the image's buffer, as a decoded animation's does: counted once.
        image.frames = [AnimationFrame(pixels: other, delay: .zero), AnimationFrame(pixels: canvas, delay: .zero)]
        image.colorDescription = ColorDescription(iccProfile: [UInt8](repeating: 1, count: 100))
        let profile = image.colorDescription?.iccProfile?.capacity ?? 0
        #expect(profile >= 100)
        #expect(image.cost == canvas.capacity + other.capacity + profile)
        #expect(canvas.capacity >= 64)
    }

    @Test func paddedRowsArePacked() {
        // 1x2 RGBA with 8-byte rows: the padding must not leak into the packed copy.
        let padded = Image(
            width: 1, height: 2, bytesPerRow: 8, pixels: [1, 2, 3, 4, 99, 99, 99, 99, 5, 6, 7, 8, 99, 99, 99, 99])
        #expect(padded.convertedToRGBA8().pixels == [1, 2, 3, 4, 5, 6, 7, 8])
    }
}
