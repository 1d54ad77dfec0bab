import TroveCore

/// A weight table's weights for the horizontal pass, each repeated across a `SIMD4<Float>` and laid out
/// `taps` to an output: a tap is then one aligned load and one vector multiply, instead of a scalar load and
/// a shuffle to spread it over the pixel's four channels. The products are the same as multiplying by the
/// scalar weight, so the pixels do not change.
final class BroadcastWeights {
    /// Weights per output; every output has exactly this many, zero past its own taps.
    let taps: Int
    /// `count * taps` weights: output `j`'s tap `k` at `j * taps + k`.
    let splats: UnsafeMutablePointer<SIMD4<Float>>

    /// The first `taps` weights of each of `table`'s outputs; `taps` must not pass the table's stride.
    init(_ table: WeightTable, taps: Int) throws {
        precondition(taps > 0 && taps <= table.stride, "broadcast taps must fit the table's stride")
        // Four times the table's own bytes: refuse what the limits would, as the table itself does.
        try DecodingLimits.default.check(width: table.count, height: taps, bytesPerPixel: 16)
        self.taps = taps
        splats = .allocate(capacity: table.count * taps)
        for j in 0..<table.count {
            let weights = table.weights + j * table.stride
            let row = splats + j * taps
            for k in 0..<taps {
                (row + k).initialize(to: SIMD4(repeating: weights[k]))
            }
        }
    }

    deinit {
        splats.deallocate()
    }
}
