import Foundation
import Testing
import TroveCodec
import TroveCore
import TroveTestSupport

/// GIF fixtures (still, transparent, interlaced, animated with every disposal mode, and one written by
/// Pillow's encoder) decode to exactly the composed frames Pillow produces.
@Suite struct GIFReferenceTests {
    @Test func fixturesAreAllIndexed() {
        #expect(Fixtures.gifIndex.map(\.name) == ["still", "transparent", "interlaced", "animated", "pillow"])
    }

    @Test(arguments: Fixtures.gifIndex.map(\.name))
    func decodesEveryFrameLikeTheReference(name: String) throws {
        let entry = try #require(Fixtures.gifIndex.first { $0.name == name })
        let image = try GIFDecoder().decode(try Fixtures.gif(name), limits: .default)
        #expect(image.width == entry.width && image.height == entry.height)
        #expect(image.pixelFormat == .rgba8 && image.sourceFormat == .gif)
        let frameBytes = entry.width * entry.height * 4
        let reference = try Fixtures.gifReference(name)
        #expect(reference.count == frameBytes * entry.frames)
        // A still GIF has no frame list; an animated one lists every frame and its pixels start the image.
        let frames = entry.frames == 1 ? [image.pixels] : image.frames.map(\.pixels)
        #expect(frames.count == entry.frames)
        #expect(image.pixels == frames.first)
        for (index, pixels) in frames.enumerated() {
            let expected = Array(reference[index * frameBytes..<(index + 1) * frameBytes])
            let firstDifference = Self.firstDifference(pixels, expected)
            #expect(pixels.count == frameBytes)
            #expect(
                firstDifference == nil,
                "\(name) frame \(index): first differing byte \(String(describing: firstDifference))")
        }
    }

    /// The first differing pixel, where fully transparent pixels match whatever their color bytes hold
    /// (Pillow clears disposed areas to the transparent index's color, browsers and Trove to zero).
    static func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> (pixel: Int, got: [UInt8], expected: [UInt8])? {
        guard a.count == b.count else { return (-1, [], []) }
        for i in stride(from: 0, to: a.count, by: 4) {
            let p = Array(a[i..<i + 4]), q = Array(b[i..<i + 4])
            if p != q && !(p[3] == 0 && q[3] == 0) { return (i / 4, p, q) }
        }
        return nil
    }

    @Test func animationKeepsDelaysAndDisposal() throws {
        let image = try GIFDecoder().decode(try Fixtures.gif("animated"), limits: .default)
        #expect(
            image.frames.map(\.delay) == [
                .milliseconds(100), .milliseconds(200), .milliseconds(300),
                .milliseconds(400), .zero
            ])
        func pixel(_ frame: Int, _ x: Int, _ y: Int) -> [UInt8] {
            let i = (y * image.width + x) * 4
            return Array(image.frames[frame].pixels[i..<i + 4])
        }
        // Frame 2 draws a red block at (2,3); its disposal "restore background" clears it to transparent.
        #expect(pixel(1, 3, 4) == [255, 0, 0, 255])
        #expect(pixel(2, 3, 4) == [0, 0, 0, 0])
        // Frame 3 draws green at (10,8) with "restore previous": frame 4 no longer shows it.
        #expect(pixel(2, 11, 8) == [0, 255, 0, 255])
        #expect(pixel(3, 11, 8) == pixel(0, 11, 8))
    }

    @Test func transparentIndexIsTransparent() throws {
        let image = try GIFDecoder().decode(try Fixtures.gif("transparent"), limits: .default)
        #expect(Array(image.pixels[0..<4]) == [0, 0, 0, 0])
        let center = (15 * image.width + 20) * 4
        #expect(image.pixels[center + 3] == 255)
    }
}
