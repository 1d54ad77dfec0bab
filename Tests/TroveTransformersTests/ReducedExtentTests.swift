import Testing
import TroveCore

@testable import TroveTransformers

/// `ReducedExtent` finds where a stored image ends in a copy a decoder reduced by whole blocks: JPEG's n/8 and
/// PNG's 1/2^k make ceil(stored x factor) pixels, the last standing for part of a block.
@Suite struct ReducedExtentTests {
    @Test(arguments: [
        // stored, reduced, span
        (3001, 751, 750.25),  // a quarter (2/8, or PNG's 2 bits)
        (1001, 251, 250.25),  // 2/8
        (1001, 501, 500.5),  // a half
        (1001, 376, 375.375),  // 3/8
        (1001, 126, 125.125),  // an eighth
        (3000, 750, 750),  // divides: the copy's size
        (1224, 306, 306),
        (100_000, 98, 97.65625),  // PNG's box by 1,024
        (7, 1, 0.875)
    ])
    func aBlockReductionEndsInsideItsLastPixel(stored: Int, reduced: Int, span: Double) {
        #expect(ReducedExtent.length(of: stored, reducedTo: reduced) == span)
    }

    @Test func anExactScaleOrNoReductionSpansTheWholeCopy() {
        // libwebp's scaled decode maps the whole image onto the copy.
        #expect(ReducedExtent.length(of: 3001, reducedTo: 751, byBlocks: false) == 751)
        // No block factor makes 600 pixels of 1001.
        #expect(ReducedExtent.length(of: 1001, reducedTo: 600) == 600)
        #expect(ReducedExtent.length(of: 300, reducedTo: 300) == 300)
        #expect(ReducedExtent.length(of: 300, reducedTo: 0) == 0)
    }

    /// A plan scaled to a quarter-size copy of 3001x2001 reads 750.25 x 500.25 of it, not all 751 x 501.
    @Test func aPlanScaledToABlockReducedCopyReadsOnlyTheImage() {
        let plan = ResizePlan.whole(width: 3001, height: 2001, outputWidth: 300, outputHeight: 200)
        let scaled = plan.scaled(from: PixelSize(width: 3001, height: 2001), to: PixelSize(width: 751, height: 501))
        #expect(scaled.box == .init(x: 0, y: 0, width: 750.25, height: 500.25))
        let exact = plan.scaled(
            from: PixelSize(width: 3001, height: 2001), to: PixelSize(width: 751, height: 501), byBlocks: false)
        #expect(exact.box == .init(x: 0, y: 0, width: 751, height: 501))
    }
}
