import Testing
import TroveCore

@testable import TroveTransformers

/// What the weight tables give the resampling passes: the taps each output reads.
@Suite struct WeightTableTests {
    /// An axis kept at its size (a reduced JPEG decode whose width is already the output's) is a copy: each
    /// output reads its own pixel alone. Lanczos's zeros at whole offsets come out of the sine as about
    /// 1e-16, and were kept as taps: six per pixel, for lanczos3, to copy one.
    @Test(arguments: ResizeTransformer.Filter.allCases, [1, 7, 512])
    func anAxisAtScaleOneReadsOnePixelPerOutput(filter: ResizeTransformer.Filter, size: Int) throws {
        let table = try WeightTable(
            inputSize: size, boxStart: 0, boxLength: Double(size), count: size, filter: filter)
        for i in 0..<size {
            #expect(table.tapCounts[i] == 1, "output \(i) reads \(table.tapCounts[i]) taps")
            #expect(table.starts[i] == i)
            #expect(table.weights[i * table.stride] == 1)
        }
        #expect(table.widestTapCount == 1)
    }

    /// The trim drops only rounding errors: a slight shrink still reads every tap its kernel reaches, and the
    /// weights still sum to 1.
    @Test func aSlightShrinkKeepsItsTaps() throws {
        let table = try WeightTable(inputSize: 342, boxStart: 0, boxLength: 342, count: 341, filter: .lanczos3)
        #expect(table.widestTapCount >= 6)
        for i in 0..<table.count {
            let weights = (0..<table.tapCounts[i]).map { table.weights[i * table.stride + $0] }
            #expect(abs(weights.reduce(0, +) - 1) < 1e-5, "output \(i): weights sum to \(weights.reduce(0, +))")
        }
    }
}
