/// The working memory of a separable resample's vertical pass: a ring of horizontally filtered rows (premultiplied
/// Float pixels, `outputWidth` a row) indexed by source row, one row of premultiplied source pixels for the
/// horizontal pass, and the vertical pass's sums.
final class RowWindow {
    /// Rows the ring holds; source row y lives in slot y % capacity.
    let capacity: Int
    let outputWidth: Int
    /// One source row converted to premultiplied Float, the horizontal pass's input, followed by
    /// `linePadding` zero pixels that the last pair of an output's taps may read.
    let line: UnsafeMutablePointer<SIMD4<Float>>
    /// One output row's sums, the vertical pass's accumulator.
    let sums: UnsafeMutablePointer<SIMD4<Float>>
    /// Whether the source row in each slot was opaque: a vertical pass over opaque rows only has no alpha
    /// to undo.
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
        sums = .allocate(capacity: outputWidth)
        sums.initialize(repeating: .zero, count: outputWidth)
    }

    deinit {
        ring.deallocate()
        opaque.deallocate()
        line.deallocate()
        sums.deallocate()
    }

    /// The slot that holds filtered source row `y`.
    @inline(__always)
    func slot(_ y: Int) -> Int { y % capacity }

    /// Filtered source row `y`.
    @inline(__always)
    func row(_ y: Int) -> UnsafeMutablePointer<SIMD4<Float>> { ring + slot(y) * outputWidth }
}
