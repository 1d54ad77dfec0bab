import Testing
import TroveCore
import TroveTransformers

@Suite struct ResizeGeometryTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let source: (Int, Int)
        let target: (Int?, Int?)
        let mode: ResizeTransformer.Mode
        let upscale: Bool
        let expected: (Int, Int)
        var testDescription: String {
            "\(source.0)x\(source.1) \(mode) to \(target.0.map(String.init) ?? "auto")x"
                + "\(target.1.map(String.init) ?? "auto") upscale=\(upscale)"
        }
    }

    @Test(arguments: [
        // fit: the smaller ratio wins, aspect kept.
        Case(source: (200, 100), target: (100, 100), mode: .fit, upscale: false, expected: (100, 50)),
        Case(source: (200, 100), target: (50, 100), mode: .fit, upscale: false, expected: (50, 25)),
        Case(source: (100, 200), target: (100, 100), mode: .fit, upscale: false, expected: (50, 100)),
        Case(source: (3, 7), target: (2, 10), mode: .fit, upscale: false, expected: (2, 5)),  // 4.67 rounds to 5
        Case(source: (1000, 10), target: (10, 10), mode: .fit, upscale: false, expected: (10, 1)),  // at least 1 px
        Case(source: (200, 100), target: (400, 400), mode: .fit, upscale: true, expected: (400, 200)),
        // One dimension: the other follows the aspect ratio, whatever the mode.
        Case(source: (200, 100), target: (100, nil), mode: .fit, upscale: false, expected: (100, 50)),
        Case(source: (200, 100), target: (nil, 20), mode: .fit, upscale: false, expected: (40, 20)),
        Case(source: (200, 100), target: (100, nil), mode: .stretch, upscale: false, expected: (100, 50)),
        Case(source: (200, 100), target: (nil, 30), mode: .fill, upscale: false, expected: (60, 30)),
        Case(source: (200, 100), target: (400, nil), mode: .fit, upscale: true, expected: (400, 200)),
        // fill: exactly the box.
        Case(source: (200, 100), target: (50, 50), mode: .fill, upscale: false, expected: (50, 50)),
        Case(source: (200, 100), target: (100, 20), mode: .fill, upscale: false, expected: (100, 20)),
        Case(source: (200, 100), target: (400, 400), mode: .fill, upscale: true, expected: (400, 400)),
        // fill that would need enlarging: crop at scale 1 instead.
        Case(source: (200, 100), target: (100, 150), mode: .fill, upscale: false, expected: (100, 100)),
        // stretch: exactly the box, each axis capped at the source without upscale.
        Case(source: (200, 100), target: (50, 80), mode: .stretch, upscale: false, expected: (50, 80)),
        Case(source: (200, 100), target: (300, 50), mode: .stretch, upscale: false, expected: (200, 50)),
        Case(source: (200, 100), target: (300, 50), mode: .stretch, upscale: true, expected: (300, 50))
    ])
    func outputSize(_ c: Case) throws {
        let resize = ResizeTransformer(width: c.target.0, height: c.target.1, mode: c.mode, upscale: c.upscale)
        let image = solidImage(width: c.source.0, height: c.source.1, [10, 20, 30, 255])
        let output = try resize.transform(image)
        #expect(output.width == c.expected.0)
        #expect(output.height == c.expected.1)
        #expect(output.pixels.count == c.expected.0 * c.expected.1 * 4)
        #expect(output.bytesPerRow == c.expected.0 * 4)
        let predicted = resize.outputSize(forWidth: c.source.0, height: c.source.1)
        #expect(predicted.width == c.expected.0 && predicted.height == c.expected.1)
    }

    @Test(arguments: [
        ResizeTransformer(width: 400, height: 400, mode: .fit),
        ResizeTransformer(width: 400, height: 400, mode: .fill),
        ResizeTransformer(width: 200, height: 100, mode: .fill),
        ResizeTransformer(width: 300, height: 300, mode: .stretch),
        ResizeTransformer(width: 300, height: nil),
        ResizeTransformer(width: nil, height: 100),
        ResizeTransformer(width: nil, height: nil)
    ])
    func doesNotEnlargeByDefault(_ resize: ResizeTransformer) throws {
        // A non-uniform image, so "unchanged" cannot be satisfied by a resampled copy by accident.
        let image = makeImage(width: 200, height: 100) { x, y in [UInt8(x), UInt8(y), 7, UInt8(255 - x)] }
        #expect(try resize.transform(image) == image)
    }

    @Test func fillCropsTheCentreAfterScaling() throws {
        // Red left half, blue right half; fill 50x50 scales to 100x50 and keeps columns 25..<75.
        let image = makeImage(width: 200, height: 100) { x, _ in x < 100 ? [255, 0, 0, 255] : [0, 0, 255, 255] }
        let output = try ResizeTransformer(width: 50, height: 50, mode: .fill).transform(image)
        #expect(pixel(output, 0, 0) == [255, 0, 0, 255])
        #expect(pixel(output, 23, 25) == [255, 0, 0, 255])
        #expect(pixel(output, 26, 25) == [0, 0, 255, 255])
        #expect(pixel(output, 49, 49) == [0, 0, 255, 255])
    }

    @Test func fillWithoutScalingCopiesTheCentreExactly() throws {
        // 20x10 into a 10x10 box: no scaling is needed, so the crop is an exact copy of columns 5..<15.
        let image = makeImage(width: 20, height: 10) { x, y in [UInt8(x * 10), UInt8(y * 10), 0, UInt8(x * 5)] }
        let output = try ResizeTransformer(width: 10, height: 10, mode: .fill).transform(image)
        #expect(output.width == 10 && output.height == 10)
        for y in 0..<10 {
            for x in 0..<10 {
                #expect(pixel(output, x, y) == pixel(image, x + 5, y))
            }
        }
    }

    @Test func keepsSourceFormatAndOrientation() throws {
        let image = Image(
            width: 4, height: 4, pixels: [UInt8](repeating: 9, count: 64), sourceFormat: .gif,
            orientation: .right)
        let output = try ResizeTransformer(width: 2, height: 2).transform(image)
        #expect(output.sourceFormat == .gif)
        #expect(output.orientation == .right)
    }

    @Test func resizesEveryAnimationFrame() throws {
        let first = [UInt8](repeating: 50, count: 8 * 4 * 4)
        let second = [UInt8](repeating: 200, count: 8 * 4 * 4)
        let image = Image(
            width: 8, height: 4, pixels: first,
            frames: [
                AnimationFrame(pixels: first, delay: .milliseconds(100)),
                AnimationFrame(pixels: second, delay: .milliseconds(250))
            ])
        let output = try ResizeTransformer(width: 4, height: 2, mode: .stretch).transform(image)
        #expect(output.frames.count == 2)
        #expect(output.frames.map(\.delay) == [.milliseconds(100), .milliseconds(250)])
        #expect(output.frames[0].pixels == [UInt8](repeating: 50, count: 4 * 2 * 4))
        #expect(output.frames[1].pixels == [UInt8](repeating: 200, count: 4 * 2 * 4))
    }

    @Test func rejectsAMalformedAnimationFrame() {
        let image = Image(
            width: 8, height: 4, pixels: [UInt8](repeating: 1, count: 128),
            frames: [AnimationFrame(pixels: [1, 2, 3], delay: .milliseconds(10))])
        #expect {
            try ResizeTransformer(width: 4, height: 2).transform(image)
        } throws: { error in
            guard case let .invalidConfiguration(reason) = error as? TroveError else { return false }
            return reason.contains("frame 0") && reason.contains("3 bytes")
        }
    }

    @Test func refusesAnOutputOverTheDecodingLimit() {
        let image = solidImage(width: 2, height: 2, [1, 2, 3, 255])
        let resize = ResizeTransformer(width: 20_000, height: 20_000, mode: .stretch, upscale: true)
        #expect(
            throws: TroveError.imageTooLarge(
                width: 20_000, height: 20_000,
                limit: DecodingLimits.default.maxPixels)
        ) {
            try resize.transform(image)
        }
    }
}
