import CResample

/// The C kernels (`CResample`) for the resampler's vertical pass, a plane's horizontal pass and its rows'
/// transposition into lanes, and the 2x2 chroma halving, on CPUs with AVX2: eight floats to an instruction
/// where Swift's SIMD types, compiled for the x86-64 baseline, give four. They do the portable Swift loops'
/// arithmetic in the same order, so the bytes never depend on the machine; the passes take a flag (defaulting
/// to `available`) so tests can run both ways.
enum ResampleKernels {
    /// Whether this CPU runs the AVX2 kernels.
    static let available = trove_resample_has_avx2() != 0

    /// Writes `count` bytes to `out`: each the rounded sum over `paired` (even) rows of the row's float times
    /// its weight, rows taken in pairs (see `trove_resample_rows_avx2`). Only where `available`.
    static func weightedRows<Row>(
        _ rows: UnsafePointer<UnsafePointer<Row>>, weights: UnsafePointer<Float>, paired: Int, floats count: Int,
        into out: UnsafeMutablePointer<UInt8>
    ) {
        // A row pointer is a pointer whatever it points to; the kernel reads the rows as floats.
        UnsafeRawPointer(rows).withMemoryRebound(to: UnsafePointer<Float>?.self, capacity: paired) { floatRows in
            trove_resample_rows_avx2(floatRows, weights, Int32(paired), count, out)
        }
    }

    /// Eight staged rows of bytes into a batch's lanes as floats (see `trove_transpose_rows_avx2`). Only where
    /// `available`.
    static func transpose(
        _ staged: UnsafePointer<UInt8>, stride: Int, columns: Int, into batch: UnsafeMutablePointer<SIMD8<Float>>
    ) {
        UnsafeMutableRawPointer(batch).withMemoryRebound(to: Float.self, capacity: columns * 8) { floats in
            trove_transpose_rows_avx2(staged, stride, columns, floats)
        }
    }

    /// A plane's horizontal pass over a batch of eight rows into their lanes' slots (see
    /// `trove_filter_across_avx2`). Only where `available`.
    static func filterAcross(
        _ batch: UnsafePointer<SIMD8<Float>>, starts: UnsafePointer<Int>, firstColumn: Int,
        weights: UnsafePointer<SIMD4<Float>>, taps: Int, outputs: Int,
        into slots: UnsafePointer<UnsafeMutablePointer<Float>>
    ) {
        UnsafeRawPointer(slots).withMemoryRebound(to: UnsafeMutablePointer<Float>?.self, capacity: 8) { slots in
            trove_filter_across_avx2(
                UnsafeRawPointer(batch).assumingMemoryBound(to: Float.self), starts, firstColumn,
                UnsafeRawPointer(weights).assumingMemoryBound(to: Float.self), Int32(taps), outputs, slots)
        }
    }

    /// Halves two rows 2x2 into `pairs` bytes with libjpeg's alternating bias. Only where `available`.
    static func halve(
        top: UnsafePointer<UInt8>, bottom: UnsafePointer<UInt8>, pairs: Int, into out: UnsafeMutablePointer<UInt8>
    ) {
        trove_halve_rows_avx2(top, bottom, pairs, out)
    }
}
