import TroveCore

/// Where a stored image ends in a decoder's reduced copy of it. JPEG's scaled IDCT (by n/8) and PNG's box (by
/// 1/2^k) reduce by whole blocks and make ceil(stored x factor) pixels, the last of which stands for part of a
/// block only: the image spans stored x factor of them, less than the copy's size. Taking the copy's size for
/// the image's stretched every resize of a size the block does not divide, by up to a pixel of the copy: a
/// 1601x1067 JPEG read at an eighth and fit to 200 px was 21.1 dB from the full decode resized, 28.2 in place.
package enum ReducedExtent {
    /// The factor a decoder that reduces by whole blocks reduced `stored` by to make `reduced`: the largest n/8,
    /// then 1/2^k, that makes ceil(side x factor) pixels of both sides (JPEG and PNG reduce both alike, and one
    /// side alone may fit several for a short side); nil when none does, or nothing was reduced.
    package static func blockFactor(of stored: PixelSize, reducedTo reduced: PixelSize) -> Double? {
        guard reduced.width > 0, reduced.height > 0, stored.width >= reduced.width, stored.height >= reduced.height,
            stored != reduced
        else { return nil }
        func makes(_ numerator: Int, _ denominator: Int) -> Bool {
            (stored.width * numerator + denominator - 1) / denominator == reduced.width
                && (stored.height * numerator + denominator - 1) / denominator == reduced.height
        }
        for eighths in stride(from: 7, through: 1, by: -1) where makes(eighths, 8) { return Double(eighths) / 8 }
        let longer = max(stored.width, stored.height)
        for bits in 4..<62 {
            let block = 1 << bits
            if makes(1, block) { return 1 / Double(block) }
            // Every larger block makes one pixel of each side too.
            if block >= longer { break }
        }
        return nil
    }

    /// Where the image starts along an axis of the copy: 0, or past the copy's partial pixels when the axis is
    /// shown reversed (a turn that mirrors it puts the stored image's end, and those pixels, first).
    package static func start(span: Double, reducedTo reduced: Int, reversed: Bool) -> Double {
        reversed ? Double(reduced) - span : 0
    }

    /// The span of `stored` in a copy reduced to `reduced`, on each axis: stored x `blockFactor`, or the copy's
    /// own size when no block factor makes it, when nothing was reduced, or when the decoder scaled the whole
    /// image onto the copy (`byBlocks` false, as libwebp's scaled decode does).
    package static func size(
        of stored: PixelSize, reducedTo reduced: PixelSize, byBlocks: Bool = true
    ) -> (width: Double, height: Double) {
        guard byBlocks, let factor = blockFactor(of: stored, reducedTo: reduced) else {
            return (Double(reduced.width), Double(reduced.height))
        }
        return (Double(stored.width) * factor, Double(stored.height) * factor)
    }
}
