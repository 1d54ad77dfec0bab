import Testing
import TroveCore

@testable import TroveTransformers

/// The transformers behind imgproxy's composition and filter options: embed and padding, trim,
/// pixelate, sharpen, the attention search and the watermark, checked on their pixels.
@Suite struct CompositionTests {
    /// A flat grey left half and a fine black-and-white checkerboard right half.
    static func halfDetailed(width: Int = 192, height: Int = 96, detailOnRight: Bool = true) -> Image {
        makeImage(width: width, height: height) { x, y in
            let detailed = detailOnRight ? x >= width / 2 : x < width / 2
            guard detailed else { return [128, 128, 128, 255] }
            return (x / 2 + y / 2) % 2 == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255]
        }
    }

    /// A smooth horizontal ramp with one hard vertical edge in the middle.
    static func edge(width: Int = 40, height: Int = 10) -> Image {
        makeImage(width: width, height: height) { x, _ in
            let value = UInt8(x < width / 2 ? 60 : 190)
            return [value, value, value, 255]
        }
    }

    @Test func flipIsAnExactMirror() throws {
        let image = makeImage(width: 7, height: 3) { x, y in [UInt8(x * 30), UInt8(y * 80), UInt8(x + y), 255] }
        let flipped = try FlipTransformer(.h).transform(image)
        for y in 0..<3 {
            for x in 0..<7 { #expect(pixel(flipped, x, y) == pixel(image, 6 - x, y)) }
        }
        let upsideDown = try FlipTransformer(.v).transform(image)
        for y in 0..<3 {
            for x in 0..<7 { #expect(pixel(upsideDown, x, y) == pixel(image, x, 2 - y)) }
        }
    }

    @Test func embedPlacesTheImageOnAFilledCanvas() throws {
        let image = solidImage(width: 3, height: 2, [255, 0, 0, 255])
        let fill = FillColor(red: 0, green: 0, blue: 255)
        let out = try EmbedTransformer(width: 6, height: 5, x: 2, y: 1, fill: fill).transform(image)
        #expect(out.width == 6 && out.height == 5)
        for y in 0..<5 {
            for x in 0..<6 {
                let inside = (2..<5).contains(x) && (1..<3).contains(y)
                #expect(pixel(out, x, y) == (inside ? [255, 0, 0, 255] : [0, 0, 255, 255]), "\(x),\(y)")
            }
        }
        #expect(EmbedTransformer(width: 6, height: 5, x: 2, y: 1).identifier == "embed(w=6,h=5,x=2,y=1,fill=00000000)")
    }

    @Test func paddingGrowsTheImageByItsBorders() throws {
        let out = try PaddingTransformer(top: 10, right: 10, bottom: 10, left: 10)
            .transform(solidImage(width: 100, height: 200, [9, 9, 9, 255]))
        #expect(out.width == 120 && out.height == 220)
        #expect(pixel(out, 0, 0) == [0, 0, 0, 0])
        #expect(pixel(out, 10, 10) == [9, 9, 9, 255])
        #expect(pixel(out, 109, 209) == [9, 9, 9, 255])
        #expect(pixel(out, 110, 209) == [0, 0, 0, 0])
    }

    @Test func trimCutsTheBackgroundBorder() throws {
        let image = makeImage(width: 20, height: 10) { x, y in
            (5..<12).contains(x) && (2..<7).contains(y) ? [200, 10, 10, 255] : [250, 250, 250, 255]
        }
        let out = try TrimTransformer(threshold: 10).transform(image)
        #expect(out.width == 7 && out.height == 5)
        #expect(pixel(out, 0, 0) == [200, 10, 10, 255])
        // Left border 5, right 8: equal_hor cuts 5 from both.
        let equal = try TrimTransformer(threshold: 10, equalHorizontal: true).transform(image)
        #expect(equal.width == 10 && equal.height == 5)
        // Near the background colour within the threshold counts as background.
        let faint = makeImage(width: 10, height: 10) { x, _ in x < 3 ? [245, 250, 250, 255] : [0, 0, 0, 255] }
        #expect(
            try TrimTransformer(threshold: 10, color: FillColor(red: 250, green: 250, blue: 250)).transform(faint).width
                == 7)
        #expect(
            try TrimTransformer(threshold: 2, color: FillColor(red: 250, green: 250, blue: 250)).transform(faint).width
                == 10)
    }

    @Test func pixelateBlocksAreConstantAndAlignedToTheTopLeft() throws {
        let image = makeImage(width: 10, height: 7) { x, y in [UInt8(x * 25), UInt8(y * 30), 77, 255] }
        let out = try PixelateTransformer(size: 4).transform(image)
        for blockY in stride(from: 0, to: 7, by: 4) {
            for blockX in stride(from: 0, to: 10, by: 4) {
                let first = pixel(out, blockX, blockY)
                for y in blockY..<min(blockY + 4, 7) {
                    for x in blockX..<min(blockX + 4, 10) { #expect(pixel(out, x, y) == first, "\(x),\(y)") }
                }
            }
        }
        // The first block is the mean of x 0...3 (0, 25, 50, 75) and y 0...3 (0, 30, 60, 90).
        #expect(pixel(out, 0, 0) == [38, 45, 77, 255])
        // The last column's blocks are 2 wide: x 8...9.
        #expect(pixel(out, 9, 0)[0] == 213)
    }

    @Test func sharpenRaisesEdgeEnergyAndKeepsFlatAreas() throws {
        let image = Self.edge()
        let out = try SharpenTransformer(sigma: 1).transform(image)
        func energy(_ image: Image) -> Int {
            var total = 0
            for x in 1..<image.width {
                let d = Int(pixel(image, x, 5)[0]) - Int(pixel(image, x - 1, 5)[0])
                total += d * d
            }
            return total
        }
        #expect(energy(out) > energy(image))
        #expect(pixel(out, 2, 5) == pixel(image, 2, 5))
        #expect(pixel(out, 37, 5) == pixel(image, 37, 5))
        #expect(pixel(out, 19, 5)[0] < 60 && pixel(out, 20, 5)[0] > 190)
    }

    @Test func attentionPicksTheDetailedHalf() {
        let right = AttentionRegion.origin(in: Self.halfDetailed(), width: 96, height: 96)
        #expect(right.x == 96 && right.y == 0)
        let left = AttentionRegion.origin(in: Self.halfDetailed(detailOnRight: false), width: 96, height: 96)
        #expect(left.x == 0 && left.y == 0)
        // Flat everywhere: the centre.
        let flat = AttentionRegion.origin(in: solidImage(width: 192, height: 96, [9, 9, 9, 255]), width: 96, height: 96)
        #expect(flat.x == 48)
    }

    @Test func watermarkChangesOnlyItsCorner() throws {
        let image = makeImage(width: 40, height: 30) { x, y in [UInt8(x * 5), UInt8(y * 7), 100, 255] }
        let mark = solidImage(width: 8, height: 6, [255, 255, 0, 255])
        let out = try WatermarkTransformer(mark: mark, opacity: 0.5, position: .southEast, xOffset: 2, yOffset: 3)
            .transform(image)
        for y in 0..<30 {
            for x in 0..<40 {
                let inMark = (30..<38).contains(x) && (21..<27).contains(y)
                if inMark {
                    // Half the watermark's colour over half the image's, rounded.
                    func mixed(_ mark: Int, _ below: Int) -> UInt8 { UInt8((mark * 128 + below * 127 + 127) / 255) }
                    let expected: [UInt8] = [mixed(255, x * 5), mixed(255, y * 7), mixed(0, 100), 255]
                    #expect(pixel(out, x, y) == expected, "\(x),\(y)")
                } else {
                    #expect(pixel(out, x, y) == pixel(image, x, y), "\(x),\(y)")
                }
            }
        }
        let tiled = try WatermarkTransformer(mark: mark, position: .tiled, xOffset: 2, yOffset: 4).transform(image)
        #expect(pixel(tiled, 0, 0) == [255, 255, 0, 255])
        #expect(pixel(tiled, 9, 0) == pixel(image, 9, 0))
        #expect(pixel(tiled, 10, 10) == [255, 255, 0, 255])
        let other = WatermarkTransformer(mark: solidImage(width: 8, height: 6, [0, 0, 255, 255]), position: .tiled)
        #expect(other.identifier != WatermarkTransformer(mark: mark, position: .tiled).identifier)
    }

    /// The public initialiser places by a crop gravity: each of the nine lands where imgproxy's position of
    /// the same anchor does, pixel for pixel, and `tiled` tiles whatever the gravity.
    @Test func watermarkGravitiesPlaceAsImgproxysPositions() throws {
        let image = makeImage(width: 40, height: 30) { x, y in [UInt8(x * 5), UInt8(y * 7), 100, 255] }
        let mark = solidImage(width: 8, height: 6, [255, 255, 0, 255])
        let pairs: [(CropTransformer.Gravity, WatermarkTransformer.Position)] = [
            (.center, .center), (.north, .north), (.south, .south), (.east, .east), (.west, .west),
            (.northeast, .northEast), (.northwest, .northWest), (.southeast, .southEast), (.southwest, .southWest)
        ]
        #expect(pairs.count == CropTransformer.Gravity.allCases.count)
        var outputs: [[UInt8]] = []
        for (gravity, position) in pairs {
            let byGravity = try WatermarkTransformer(mark: mark, gravity: gravity, xOffset: 2, yOffset: 1)
                .transform(image)
            let byPosition = try WatermarkTransformer(mark: mark, position: position, xOffset: 2, yOffset: 1)
                .transform(image)
            #expect(byGravity.pixels == byPosition.pixels, "\(gravity)")
            outputs.append(byGravity.pixels)
        }
        #expect(Set(outputs).count == 9)
        let tiled = try WatermarkTransformer(mark: mark, gravity: .southwest, tiled: true).transform(image)
        #expect(tiled.pixels == (try WatermarkTransformer(mark: mark, position: .tiled).transform(image)).pixels)
    }
}
