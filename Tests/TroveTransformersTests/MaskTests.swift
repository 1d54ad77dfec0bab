import Testing
import TroveCore
import TroveTransformers

@Suite struct MaskTests {
    private let opaque = makeImage(width: 40, height: 30) { x, y in [UInt8(x * 6), UInt8(y * 8), 99, 255] }

    @Test func roundCutsTheCornersWithASoftEdgeAndKeepsTheRest() throws {
        let output = try RoundedCornersTransformer(radius: 10).transform(opaque)
        #expect(output.width == 40 && output.height == 30)
        // The corner pixel lies about 13 px from the circle centre at (10, 10): fully cut.
        for (x, y) in [(0, 0), (39, 0), (0, 29), (39, 29)] { #expect(pixel(output, x, y)[3] == 0, "(\(x), \(y))") }
        // Straight edges and the middle are untouched, colours everywhere too.
        for (x, y) in [(20, 0), (0, 15), (39, 15), (20, 29), (20, 15), (10, 0), (0, 10)] {
            #expect(pixel(output, x, y) == pixel(opaque, x, y), "(\(x), \(y))")
        }
        // The arc crosses partially covered pixels (antialiased, not stair-stepped), and alpha only grows
        // towards the middle along the diagonal.
        let corner = (0..<10).flatMap { y in (0..<10).map { x in pixel(output, x, y)[3] } }
        #expect(corner.filter { $0 > 0 && $0 < 255 }.count >= 5, "\(corner)")
        let diagonal = (0..<10).map { pixel(output, $0, $0)[3] }
        #expect(zip(diagonal, diagonal.dropFirst()).allSatisfy { $0 <= $1 }, "\(diagonal)")
        // The four corners are mirror images.
        for y in 0..<10 {
            for x in 0..<10 {
                let a = pixel(output, x, y)[3]
                #expect(
                    pixel(output, 39 - x, y)[3] == a && pixel(output, x, 29 - y)[3] == a
                        && pixel(output, 39 - x, 29 - y)[3] == a)
            }
        }
    }

    @Test func radiusOverHalfTheShorterSideMakesAPill() throws {
        let bar = solidImage(width: 20, height: 10, [1, 2, 3, 255])
        let pill = try RoundedCornersTransformer(radius: 100).transform(bar)
        #expect(pill == (try RoundedCornersTransformer(radius: 5).transform(bar)))
        #expect(pixel(pill, 0, 0)[3] == 0 && pixel(pill, 10, 0)[3] == 255 && pixel(pill, 0, 5)[3] > 240)
    }

    @Test func roundScalesExistingAlpha() throws {
        let half = solidImage(width: 20, height: 20, [10, 20, 30, 128])
        let output = try RoundedCornersTransformer(radius: 5).transform(half)
        let alphas = Set(stride(from: 3, to: output.pixels.count, by: 4).map { output.pixels[$0] })
        #expect(alphas.max() == 128 && alphas.contains(0))
    }

    @Test func circleCropsTheCentredSquareAndMasksOutsideTheCircle() throws {
        let output = try CircleTransformer().transform(opaque)
        #expect(output.width == 30 && output.height == 30)
        // Columns 5..<35 of the source.
        #expect(pixel(output, 15, 15) == pixel(opaque, 20, 15))
        #expect(pixel(output, 0, 15)[0..<3] == pixel(opaque, 5, 15)[0..<3])
        var inside = 0, outside = 0, edge = 0
        for y in 0..<30 {
            for x in 0..<30 {
                let dx = Double(x) + 0.5 - 15, dy = Double(y) + 0.5 - 15
                let distance = (dx * dx + dy * dy).squareRoot(), alpha = pixel(output, x, y)[3]
                if distance < 14 { #expect(alpha == 255); inside += 1 }
                if distance > 16 { #expect(alpha == 0); outside += 1 }
                if alpha > 0 && alpha < 255 { edge += 1 }
            }
        }
        #expect(inside > 500 && outside > 100 && edge > 20, "\(inside) \(outside) \(edge)")
    }

    @Test func identifiers() {
        #expect(RoundedCornersTransformer(radius: 12).identifier == "round(radius=12)")
        #expect(RoundedCornersTransformer(radius: 12).identifier != RoundedCornersTransformer(radius: 13).identifier)
        #expect(CircleTransformer().identifier == "circle")
    }
}
