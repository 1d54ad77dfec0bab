import Testing
import TroveCore
import TroveTransformers

/// Every transform applies to every animation frame, keeping delays.
@Suite struct EveryFrameTests {
    static let transformers: [any ImageTransformer] = [
        CropTransformer(x: 1, y: 0, width: 2, height: 2), RotateTransformer(.clockwise90), FlipTransformer(.h),
        GrayscaleTransformer(), BlurTransformer(sigma: 1), RoundedCornersTransformer(radius: 1), CircleTransformer(),
        TintTransformer(red: 9, green: 9, blue: 9, alpha: 100), OpacityTransformer(alpha: 0.5)
    ]

    @Test(arguments: 0..<transformers.count)
    func appliesToEveryFrame(index: Int) throws {
        let transformer = Self.transformers[index]
        let first = makeImage(width: 4, height: 3) { x, y in [UInt8(x * 60), UInt8(y * 90), 30, 200] }
        let second = makeImage(width: 4, height: 3) { x, y in [UInt8(y * 70), 40, UInt8(x * 50), 255] }
        let animated = Image(
            width: 4, height: 3, pixels: first.pixels,
            frames: [
                AnimationFrame(pixels: first.pixels, delay: .milliseconds(40)),
                AnimationFrame(pixels: second.pixels, delay: .milliseconds(90))
            ])
        let output = try transformer.transform(animated)
        #expect(output.frames.map(\.delay) == [.milliseconds(40), .milliseconds(90)])
        #expect(output.frames[0].pixels == (try transformer.transform(first)).pixels, "\(transformer.identifier)")
        #expect(output.frames[1].pixels == (try transformer.transform(second)).pixels, "\(transformer.identifier)")
    }

    @Test func orientResetsOrientationAndTurnsEveryFrame() throws {
        let frame = makeImage(width: 3, height: 2) { x, y in [UInt8(x), UInt8(y), 0, 255] }.pixels
        let image = Image(
            width: 3, height: 2, pixels: frame, frames: [AnimationFrame(pixels: frame, delay: .zero)],
            orientation: .right)
        let output = try OrientTransformer().transform(image)
        #expect(output.width == 2 && output.height == 3 && output.orientation == .up)
        #expect(output.frames[0].pixels == output.pixels)
        #expect(try OrientTransformer().transform(output) == output, "already upright: unchanged")
    }

    @Test func malformedFrameIsAnError() {
        let image = Image(
            width: 2, height: 2, pixels: [UInt8](repeating: 1, count: 16),
            frames: [AnimationFrame(pixels: [1, 2], delay: .zero)])
        #expect {
            try FlipTransformer(.v).transform(image)
        } throws: { error in
            guard case let .invalidConfiguration(reason) = error as? TroveError else { return false }
            return reason.contains("frame 0") && reason.contains("2 bytes")
        }
    }

    @Test func blurOfASolidColourIsThatColourEvenAtTheEdges() throws {
        let image = solidImage(width: 9, height: 5, [40, 120, 200, 255])
        #expect(try BlurTransformer(sigma: 3).transform(image) == image)
        #expect(BlurTransformer(sigma: 2).identifier == "blur(sigma=2.0)")
    }
}
