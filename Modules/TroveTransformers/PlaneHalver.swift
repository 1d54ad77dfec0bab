/// Halves a plane's resolution on the way into a resample: each output sample the mean of the 2 (or 2x2)
/// samples it covers, the last column and row repeated to an even size, rounded with a bias of 1 and 2 in
/// turn across a row as libjpeg-turbo's downsampler rounds (so the rounding does not drift one way). Chroma
/// that libjpeg's scaled IDCT delivers at the luma's resolution is brought back to 4:2:0 this way before it
/// is resampled, which costs a quarter of resampling it at full size.
final class PlaneHalver {
    let target: PlaneResampler
    private let width: Int
    private let halvesAcross: Bool
    private let halvesDown: Bool
    /// Sums of the pending row pair, one per output column (or the row itself when not halving down).
    private var sums: [UInt16]
    private var row: [UInt8]
    private var pending = false
    private var rowsIn = 0
    private let height: Int

    /// Feeds `target` a `width x height` plane halved across when `across`, down when `down`.
    init(into target: PlaneResampler, width: Int, height: Int, across: Bool, down: Bool) {
        self.target = target
        self.width = width
        self.height = height
        halvesAcross = across
        halvesDown = down
        let outputWidth = across ? (width + 1) / 2 : width
        sums = [UInt16](repeating: 0, count: outputWidth)
        row = [UInt8](repeating: 0, count: outputWidth)
    }

    /// The next row of the full plane (`width` samples).
    func consume(_ samples: UnsafePointer<UInt8>) throws {
        rowsIn += 1
        let last = width - 1
        sums.withUnsafeMutableBufferPointer { sums in
            for x in 0..<sums.count {
                let value =
                    halvesAcross
                    ? UInt16(samples[2 &* x]) &+ UInt16(samples[min(2 &* x &+ 1, last)]) : UInt16(samples[x])
                sums[x] = pending ? sums[x] &+ value : value
            }
        }
        // The last row of an odd height pairs with itself.
        let completesPair = !halvesDown || pending || rowsIn == height
        if halvesDown && !pending && rowsIn == height {
            for x in 0..<sums.count { sums[x] &*= 2 }
        }
        guard completesPair else {
            pending = true
            return
        }
        pending = false
        let shift: UInt16 = (halvesAcross ? 1 : 0) + (halvesDown ? 1 : 0)
        let count = sums.count
        try row.withUnsafeMutableBufferPointer { row in
            try sums.withUnsafeBufferPointer { sums in
                for x in 0..<count {
                    let bias: UInt16 = shift == 2 ? 1 &+ UInt16(x & 1) : (shift == 1 ? UInt16(x & 1) : 0)
                    row[x] = UInt8(truncatingIfNeeded: (sums[x] &+ bias) &>> shift)
                }
                guard let base = row.baseAddress else { return }
                try target.consume(base)
            }
        }
    }
}
