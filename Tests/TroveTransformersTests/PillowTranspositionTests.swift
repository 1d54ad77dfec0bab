import Testing
import TroveCore
import TroveTestSupport
import TroveTransformers

/// Rotations, flips and EXIF orientation against Pillow's `transpose` and `ImageOps.exif_transpose`,
/// on a 90x60 RGBA photo crop: they only move pixels, so they must match byte for byte.
@Suite struct PillowTranspositionTests {
    @Test(arguments: [
        (RotateTransformer.Angle.clockwise90, "rotate-90.png"), (.clockwise180, "rotate-180.png"),
        (.clockwise270, "rotate-270.png")
    ])
    func rotationIsExact(angle: RotateTransformer.Angle, reference: String) throws {
        let output = try RotateTransformer(angle).transform(Fixtures.pillow("in-transpose.png"))
        let expected = try Fixtures.pillow(reference)
        #expect(output.width == expected.width && output.height == expected.height)
        #expect(output.pixels == expected.pixels)
    }

    @Test(arguments: [(FlipTransformer.Axis.h, "flip-h.png"), (.v, "flip-v.png")])
    func flipIsExact(axis: FlipTransformer.Axis, reference: String) throws {
        let output = try FlipTransformer(axis).transform(Fixtures.pillow("in-transpose.png"))
        #expect(output.pixels == (try Fixtures.pillow(reference)).pixels)
    }

    @Test(arguments: 1...8)
    func orientMatchesPillowsExifTranspose(value: Int) throws {
        var input = try Fixtures.pillow("in-transpose.png")
        input.orientation = try #require(ExifOrientation(rawValue: value))
        let output = try OrientTransformer().transform(input)
        let expected = try Fixtures.pillow("orient-\(value).png")
        #expect(output.width == expected.width && output.height == expected.height)
        #expect(output.pixels == expected.pixels)
        #expect(output.orientation == .up, "applied once, the orientation is reset")
    }

    /// A plane of bytes moves as an RGBA image's pixels do (which match Pillow above), for every orientation,
    /// at sizes that leave the quarter turns' tiles partly filled.
    @Test(arguments: 1...8, [(1, 1), (37, 70), (65, 33), (2, 1)])
    func aPlaneMovesAsAnImageDoes(value: Int, size: (Int, Int)) throws {
        let (width, height) = size
        let plane = (0..<(width * height)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / width) }
        let image = Image(
            width: width, height: height, pixels: plane.flatMap { [$0, 0, 0, 255] }, sourceFormat: .png)
        let turn = Transposition(undoing: try #require(ExifOrientation(rawValue: value)))
        let moved = try turn.apply(to: image)
        let movedPlane = turn.apply(toPlane: plane, width: width, height: height)
        #expect(movedPlane == stride(from: 0, to: moved.pixels.count, by: 4).map { moved.pixels[$0] })
        #expect(moved.width == (turn.swapsAxes ? height : width))
    }

    /// An empty plane moves to an empty plane under every orientation.
    @Test(arguments: 1...8, [(0, 0), (0, 5), (5, 0)])
    func anEmptyPlaneStaysEmpty(value: Int, size: (Int, Int)) throws {
        let turn = Transposition(undoing: try #require(ExifOrientation(rawValue: value)))
        #expect(turn.apply(toPlane: [], width: size.0, height: size.1).isEmpty)
    }

    @Test func fourQuarterTurnsAndTwoFlipsGiveTheImageBack() throws {
        let input = try Fixtures.pillow("in-transpose.png")
        var image = input
        for _ in 0..<4 { image = try RotateTransformer(.clockwise90).transform(image) }
        #expect(image == input)
        let flipped = try FlipTransformer(.v).transform(FlipTransformer(.v).transform(input))
        #expect(flipped == input)
    }
}
