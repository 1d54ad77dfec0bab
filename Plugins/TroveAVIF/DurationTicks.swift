extension Duration {
    /// `ticks` of a clock running at `timescale` Hz, exact to the attosecond; zero for a zero timescale
    /// (a malformed file should not crash the decoder).
    init(ticks: UInt64, timescale: UInt64) {
        guard timescale > 0 else {
            self = .zero
            return
        }
        self.init(attoseconds: Int128(ticks) * 1_000_000_000_000_000_000 / Int128(timescale))
    }
}
