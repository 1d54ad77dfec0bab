import Testing
import TroveCore

@testable import TroveTransformers

/// `ReducedExtent` finds where a stored image ends in a copy a decoder reduced by whole blocks: JPEG's n/8 and
/// PNG's 1/2^k make ceil(stored x factor) pixels of each side, the last standing for part of a block.
@Suite struct ReducedExtentTests {
    static func span(_ width: Int, _ height: Int, _ reducedWidth: Int, _ reducedHeight: Int) -> [Double] {
        let span = ReducedExtent.size(
            of: PixelSize(width: width, height: height),
            reducedTo: PixelSize(width: reducedWidth, height: reducedHeight))
        return [span.width, span.height]
    }

    @Test func aBlockReductionEndsInsideItsLastPixels() {
        #expect(Self.span(3001, 2001, 751, 501) == [750.25, 500.25])  // a quarter (2/8, or PNG's 2 bits)
        #expect(Self.span(1001, 667, 501, 334) == [500.5, 333.5])  // a half
        #expect(Self.span(1001, 667, 376, 251) == [375.375, 250.125])  // 3/8
        #expect(Self.span(1601, 1067, 201, 134) == [200.125, 133.375])  // an eighth
        #expect(Self.span(100_000, 3000, 98, 3) == [97.65625, 2.9296875])  // PNG's box by 1,024
        #expect(Self.span(3000, 2000, 750, 500) == [750, 500])  // divides: the copy's size
    }

    /// A short side alone fits several factors (3 rows make 2 at 3/8 and at 5/8): the long side decides.
    @Test func bothSidesPickTheFactor() {
        #expect(
            ReducedExtent.blockFactor(of: PixelSize(width: 3000, height: 3), reducedTo: .init(width: 1125, height: 2))
                == 3.0 / 8)
        #expect(Self.span(3000, 3, 1125, 2) == [1125, 1.125])
    }

    @Test func anExactScaleOrNoReductionSpansTheWholeCopy() {
        let stored = PixelSize(width: 3001, height: 2001), copy = PixelSize(width: 751, height: 501)
        // libwebp's scaled decode maps the whole image onto the copy.
        let exact = ReducedExtent.size(of: stored, reducedTo: copy, byBlocks: false)
        #expect(exact.width == 751 && exact.height == 501)
        // No block factor makes 600x400 of 1001x667.
        #expect(Self.span(1001, 667, 600, 400) == [600, 400])
        #expect(Self.span(300, 200, 300, 200) == [300, 200])
        #expect(
            ReducedExtent.blockFactor(of: PixelSize(width: 300, height: 200), reducedTo: .init(width: 0, height: 0))
                == nil)
    }

    /// A plan scaled to a quarter-size copy of 3001x2001 reads 750.25 x 500.25 of it, not all 751 x 501; with an
    /// axis reversed by a turn, from past the copy's partial pixels.
    @Test func aPlanScaledToABlockReducedCopyReadsOnlyTheImage() {
        let plan = ResizePlan.whole(width: 3001, height: 2001, outputWidth: 300, outputHeight: 200)
        let stored = PixelSize(width: 3001, height: 2001), copy = PixelSize(width: 751, height: 501)
        #expect(plan.scaled(from: stored, to: copy).box == .init(x: 0, y: 0, width: 750.25, height: 500.25))
        #expect(
            plan.scaled(from: stored, to: copy, reversed: (x: true, y: false)).box
                == .init(x: 0.75, y: 0, width: 750.25, height: 500.25))
        #expect(
            plan.scaled(from: stored, to: copy, byBlocks: false).box == .init(x: 0, y: 0, width: 751, height: 501))
    }
}
