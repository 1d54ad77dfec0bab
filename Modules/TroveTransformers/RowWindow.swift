/// The working memory of a separable resample's vertical pass: a ring of horizontally filtered rows (premultiplied
/// Float pixels, `outputWidth` a row) indexed by source row with whether each was opaque, one row of
/// premultiplied source pixels for the horizontal pass, and the rows and weights one vertical sum reads.
final class RowWindow {
    /// Rows the ring holds; source row y lives in slot y % capacity.
    let capacity: Int
    let outputWidth: Int
    /// One source row converted to premultiplied Float, the horizontal pass's input, followed by
    /// `linePadding` zero pixels: the taps past an output's own count (weighted 0) may read them.
    let line: UnsafeMutablePointer<SIMD4<Float>>
    /// The filtered rows one output row reads, in order, and one more: an odd count's last row again.
    let tapLines: UnsafeMutablePointer<UnsafePointer<SIMD4<Float>>>
    /// Those rows' weights, each spread over a pixel's four channels.
    let tapWeights: UnsafeMutablePointer<SIMD4<Float>>
    /// For each slot, whether the source row it holds was fully opaque. When every row a vertical pass
    /// reads was, there is no premultiplication to undo.
    let opaque: UnsafeMutablePointer<Bool>
    private let ring: UnsafeMutablePointer<SIMD4<Float>>

    init(capacity: Int, outputWidth: Int, sourceColumns: Int, linePadding: Int) {
        self.capacity = capacity
        self.outputWidth = outputWidth
        ring = .allocate(capacity: capacity * outputWidth)
        ring.initialize(repeating: .zero, count: capacity * outputWidth)
        opaque = .allocate(capacity: capacity)
        opaque.initialize(repeating: false, count: capacity)
        line = .allocate(capacity: max(sourceColumns, 1) + linePadding)
        line.initialize(repeating: .zero, count: max(sourceColumns, 1) + linePadding)
        // An output reads at most `capacity` rows: the ring holds them all at once.
        tapLines = .allocate(capacity: capacity + 1)
        tapLines.initialize(repeating: UnsafePointer(ring), count: capacity + 1)
        tapWeights = .allocate(capacity: capacity + 1)
        tapWeights.initialize(repeating: .zero, count: capacity + 1)
    }

    deinit {
        ring.deallocate()
        opaque.deallocate()
        line.deallocate()
        tapLines.deallocate()
        tapWeights.deallocate()
    }

    /// The slot that holds filtered source row `y`.
    @inline(__always)
    func slot(_ y: Int) -> Int { y % capacity }

    /// Filtered source row `y`.
    @inline(__always)
    func row(_ y: Int) -> UnsafeMutablePointer<SIMD4<Float>> { ring + slot(y) * outputWidth }
}
