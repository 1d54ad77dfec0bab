import Foundation
import Testing
import TroveCodec
import TroveCore
import TroveTestSupport
import TroveTransformers

/// How small a decoder may make the image for a resize (at least twice the output, over the region the
/// resize reads), and that the resize planned on the full size, run on the reduced image, gives the same
/// size and nearly the same pixels.
@Suite struct ShrinkOnLoadTests {
    struct MinimumCase: Sendable, CustomTestStringConvertible {
        let resize: ResizeTransformer
        let source: PixelSize
        let expected: PixelSize?
        var testDescription: String { "\(resize.identifier) of \(source)" }
    }

    @Test(arguments: [
        // fit 320x320 of 6000x4000 is 320x213: twice that.
        MinimumCase(
            resize: ResizeTransformer(width: 320, height: 320, mode: .fit, filter: .lanczos3),
            source: PixelSize(width: 6000, height: 4000), expected: PixelSize(width: 640, height: 426)),
        // fill reads the centred 4000x4000: the minimum must keep that region twice 320 on each side.
        MinimumCase(
            resize: ResizeTransformer(width: 320, height: 320, mode: .fill, filter: .lanczos3),
            source: PixelSize(width: 6000, height: 4000), expected: PixelSize(width: 960, height: 640)),
        // One axis shrinks, the other barely: each gets its own need, capped at the source.
        MinimumCase(
            resize: ResizeTransformer(width: 100, height: 900, mode: .stretch),
            source: PixelSize(width: 1000, height: 1000), expected: PixelSize(width: 200, height: 1000)),
        // Less than a 2x shrink: nothing to gain.
        MinimumCase(
            resize: ResizeTransformer(width: 600, height: 600, mode: .fit),
            source: PixelSize(width: 1000, height: 1000), expected: nil),
        // Nearest picks pixels a reduced copy has averaged away.
        MinimumCase(
            resize: ResizeTransformer(width: 100, height: 100, mode: .fit, filter: .nearest),
            source: PixelSize(width: 1000, height: 1000), expected: nil),
        // Never enlarges, so leaves a small image alone.
        MinimumCase(
            resize: ResizeTransformer(width: 400, height: 400, mode: .fit),
            source: PixelSize(width: 300, height: 200), expected: nil)
    ])
    func minimumSourceSize(_ c: MinimumCase) {
        #expect(c.resize.minimumSourceSize(for: c.source, reducingGap: 2) == c.expected)
    }

    @Test func orientFirstCoversBothReadingsOfTheStoredSize() throws {
        let resize = ResizeTransformer(width: 320, height: 100, mode: .fit, filter: .lanczos3)
        let stored = PixelSize(width: 4000, height: 6000)
        // Upright as stored: 67x100 out, needs 134x200. Quarter-turned (6000x4000): 150x100 out, needs
        // 300x200, which is 200x300 as stored. The decoder must cover both.
        let plan = try #require(ShrinkOnLoad(transforms: [OrientTransformer(), resize], storedSize: stored))
        #expect(plan.minimumSize == PixelSize(width: 200, height: 300))
        let direct = try #require(ShrinkOnLoad(transforms: [resize], storedSize: stored))
        #expect(direct.minimumSize == PixelSize(width: 134, height: 200))
    }

    @Test func onlyALeadingShrinkPlans() {
        let resize = ResizeTransformer(width: 50, height: 50)
        let stored = PixelSize(width: 1000, height: 1000)
        #expect(ShrinkOnLoad(transforms: [], storedSize: stored) == nil)
        #expect(ShrinkOnLoad(transforms: [GrayscaleTransformer(), resize], storedSize: stored) == nil)
        #expect(ShrinkOnLoad(transforms: [ResizeTransformer(width: 800, height: 800)], storedSize: stored) == nil)
        #expect(ShrinkOnLoad(transforms: [resize, GrayscaleTransformer()], storedSize: stored) != nil)
    }

    struct ReducedCase: Sendable, CustomTestStringConvertible {
        let resize: ResizeTransformer
        let expectedShift: Int
        var testDescription: String { resize.identifier }
    }

    /// Through the PNG decoder's reduce-while-unfiltering: same output size as the full-size path, pixels
    /// within 40 dB of it (Pillow's reducing_gap=2 makes the same trade).
    @Test(arguments: [
        ReducedCase(
            resize: ResizeTransformer(width: 100, height: 100, mode: .fit, filter: .lanczos3), expectedShift: 1),
        ReducedCase(resize: ResizeTransformer(width: 60, height: 60, mode: .fill, filter: .bicubic), expectedShift: 1),
        ReducedCase(resize: ResizeTransformer(width: 70, height: nil, filter: .bilinear), expectedShift: 2),
        ReducedCase(
            resize: ResizeTransformer(width: 33, height: 90, mode: .stretch, filter: .lanczos3),
            expectedShift: 1)
    ])
    func reducedDecodeGivesTheFullSizeResult(_ c: ReducedCase) throws {
        let data = try Data(contentsOf: Fixtures.root.appendingPathComponent("images/coffee.png"))  // 600x400
        let decoder = PNGDecoder()
        let full = try decoder.decode(data, limits: .default)
        let expected = try c.resize.transform(full)

        let stored = try #require(try decoder.info(data))
        let plan = try #require(
            ShrinkOnLoad(
                transforms: [c.resize],
                storedSize: PixelSize(width: stored.width, height: stored.height)))
        let reduced = try decoder.decode(data, options: DecodingOptions(minimumSize: plan.minimumSize))
        #expect(reduced.width == (600 + (1 << c.expectedShift) - 1) >> c.expectedShift)
        #expect(reduced.height == (400 + (1 << c.expectedShift) - 1) >> c.expectedShift)
        var output = reduced
        for transformer in plan.transforms(for: reduced) { output = try transformer.transform(output) }
        try #require(output.width == expected.width && output.height == expected.height)
        let value = psnr(output, expected)
        #expect(value >= 40, "PSNR \(value) dB")
    }

    @Test func quarterTurnedOrientationUsesTheUprightGeometry() throws {
        var full = try Fixtures.photo("coffee.png")  // 600x400 stored, 400x600 upright
        full.orientation = .right
        let resize = ResizeTransformer(width: 50, height: 80, mode: .fill, filter: .lanczos3)
        var expected = try OrientTransformer().transform(full)
        expected = try resize.transform(expected)

        let plan = try #require(
            ShrinkOnLoad(
                transforms: [OrientTransformer(), resize],
                storedSize: PixelSize(width: 600, height: 400)))
        var reduced = reducedByTwo(full)  // 300x200, still covers the minimum
        #expect(reduced.width >= plan.minimumSize.width && reduced.height >= plan.minimumSize.height)
        reduced.orientation = .right
        var output = reduced
        for transformer in plan.transforms(for: reduced) { output = try transformer.transform(output) }
        try #require(output.width == 50 && output.height == 80)
        let value = psnr(output, expected)
        #expect(value >= 40, "PSNR \(value) dB")
    }

    @Test func oddSizesKeepTheFullSizeOutputSize() throws {
        // 601x401 reduced to 301x201 (a partial block rounds up): fit 100 must still give 100x67.
        let source = makeImage(width: 601, height: 401) { x, y in [UInt8(x % 256), UInt8(y % 256), 90, 255] }
        let resize = ResizeTransformer(width: 100, height: 100, mode: .fit, filter: .bicubic)
        let reduced = reducedByTwo(source)
        #expect(reduced.width == 301 && reduced.height == 201)
        let reducedResize = resize.forReducedSource(
            PixelSize(width: 301, height: 201),
            of: PixelSize(width: 601, height: 401))
        let output = try reducedResize.transform(reduced)
        let expected = try resize.transform(source)
        #expect(output.width == expected.width && output.height == expected.height)
        #expect(reducedResize.identifier == resize.identifier)
        // Given anything but the reduced size it was planned for, it refuses instead of guessing.
        #expect(throws: TroveError.self) { try reducedResize.transform(source) }
    }
}

/// 2x2 box average with partial blocks at the edges, rounded (opaque images).
private func reducedByTwo(_ image: Image) -> Image {
    let width = (image.width + 1) / 2, height = (image.height + 1) / 2
    var out = [UInt8](repeating: 0, count: width * height * 4)
    for by in 0..<height {
        for bx in 0..<width {
            var sums = [0, 0, 0, 0], count = 0
            for y in 2 * by..<min(2 * by + 2, image.height) {
                for x in 2 * bx..<min(2 * bx + 2, image.width) {
                    for c in 0..<4 { sums[c] += Int(image.pixels[(y * image.width + x) * 4 + c]) }
                    count += 1
                }
            }
            for c in 0..<4 { out[(by * width + bx) * 4 + c] = UInt8((sums[c] + count / 2) / count) }
        }
    }
    return Image(width: width, height: height, pixels: out, orientation: image.orientation)
}
