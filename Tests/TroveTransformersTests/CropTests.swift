import Testing
import TroveCore
import TroveTransformers

@Suite struct CropTests {
    /// Every pixel distinct: red = x, green = y.
    private let image = makeImage(width: 10, height: 6) { x, y in [UInt8(x), UInt8(y), 7, 255] }

    @Test func rectangleCopiesExactlyThosePixels() throws {
        let output = try CropTransformer(x: 2, y: 1, width: 5, height: 3).transform(image)
        #expect(output.width == 5 && output.height == 3)
        for y in 0..<3 {
            for x in 0..<5 { #expect(pixel(output, x, y) == [UInt8(x + 2), UInt8(y + 1), 7, 255]) }
        }
    }

    @Test func rectanglePastTheEdgeKeepsThePartInside() throws {
        let output = try CropTransformer(x: 8, y: 4, width: 5, height: 5).transform(image)
        #expect(output.width == 2 && output.height == 2)
        #expect(pixel(output, 1, 1) == [9, 5, 7, 255])
    }

    @Test func rectangleOutsideTheImageIsAnError() {
        #expect {
            try CropTransformer(x: 10, y: 0, width: 3, height: 3).transform(image)
        } throws: { error in
            guard case let .invalidTransformParameter(transform, _, reason) = error as? TroveError else { return false }
            return transform == "crop" && reason.contains("outside the 10x6 image")
        }
    }

    @Test(arguments: [
        (CropTransformer.Gravity.center, 3, 2), (.north, 3, 0), (.south, 3, 4), (.east, 6, 2), (.west, 0, 2),
        (.northeast, 6, 0), (.northwest, 0, 0), (.southeast, 6, 4), (.southwest, 0, 4)
    ])
    func gravityPlacesTheBox(gravity: CropTransformer.Gravity, x: Int, y: Int) throws {
        // 4x2 out of 10x6: 6 spare columns and 4 spare rows, split evenly for the centre.
        let output = try CropTransformer(width: 4, height: 2, gravity: gravity).transform(image)
        #expect(output.width == 4 && output.height == 2)
        #expect(pixel(output, 0, 0) == [UInt8(x), UInt8(y), 7, 255])
        #expect(pixel(output, 3, 1) == [UInt8(x + 3), UInt8(y + 1), 7, 255])
    }

    @Test func sizeLargerThanTheImageIsCutToIt() throws {
        let output = try CropTransformer(width: 40, height: 4, gravity: .south).transform(image)
        #expect(output.width == 10 && output.height == 4)
        #expect(pixel(output, 0, 0) == [0, 2, 7, 255])
    }

    @Test func identifiersNameEveryParameter() {
        #expect(CropTransformer(x: 1, y: 2, width: 3, height: 4).identifier == "crop(x=1,y=2,w=3,h=4)")
        #expect(
            CropTransformer(width: 3, height: 4, gravity: .northeast).identifier
                == "crop(w=3,h=4,gravity=northeast)")
        let all = CropTransformer.Gravity.allCases.map { CropTransformer(width: 3, height: 4, gravity: $0).identifier }
        #expect(Set(all).count == all.count)
    }
}
