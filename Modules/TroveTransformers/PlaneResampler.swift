import TroveCore

/// A separable resample of one 8-bit plane fed row by row. Rows are taken four at a time into the lanes of
/// one line of `SIMD4<Float>`, so the horizontal pass filters four rows in the work the RGBA resize spends
/// on one pixel's four channels; the filtered rows go into a ring, and each output row is written once the
/// rows its vertical filter reads are in. The weight tables are `Resampler`'s own (`WeightTable`, shared
/// through `WeightTableCache`), so a luma plane gets the taps the RGBA path gives each channel.
final class PlaneResampler {
    let inputWidth: Int
    let inputHeight: Int
    let outputWidth: Int
    let outputHeight: Int
    private let columns: WeightTable
    private let rows: WeightTable
    private let firstColumn: Int
    private let columnCount: Int
    /// The most taps an output column reads, rounded up to a pair (never past the table's stride).
    private let taps: Int
    /// For each output row, the lowest source row it or any later output row reads.
    private let lowestRowStillNeeded: [Int]
    /// One past the last source row any output reads.
    private let rowsEnd: Int
    private let capacity: Int
    /// Filtered rows, source row y in slot y % capacity, `outputWidth` Floats each, then one scratch row.
    private let ring: UnsafeMutablePointer<Float>
    /// Up to four source rows as Floats, row r of the batch in lane r, then `taps` zero columns the last
    /// outputs' zero-weighted taps may read.
    private let batch: UnsafeMutablePointer<SIMD4<Float>>
    private var batchStart = 0
    private var batchRows = 0
    private let sums: UnsafeMutablePointer<Float>
    private(set) var output: [UInt8]
    private var nextSourceRow = 0
    private var nextOutputRow = 0

    /// Resamples the region starting at `boxX, boxY` and spanning `boxWidth x boxHeight` of an
    /// `inputWidth x inputHeight` plane (in its own samples; the region may pass its edges by a fraction,
    /// where taps are dropped) to `outputWidth x outputHeight`. Throws when the sizes are empty or over the
    /// limits.
    init(
        inputWidth: Int, inputHeight: Int, boxX: Double, boxY: Double, boxWidth: Double, boxHeight: Double,
        outputWidth: Int, outputHeight: Int, filter: ResizeTransformer.Filter
    ) throws {
        guard inputWidth > 0, inputHeight > 0, outputWidth > 0, outputHeight > 0, boxWidth > 0, boxHeight > 0,
            boxX.isFinite, boxY.isFinite, boxWidth.isFinite, boxHeight.isFinite
        else {
            throw TroveError.invalidConfiguration(
                "plane resample: \(inputWidth)x\(inputHeight) to \(outputWidth)x\(outputHeight) is empty")
        }
        try DecodingLimits.default.check(width: outputWidth, height: outputHeight, bytesPerPixel: 1)
        try DecodingLimits.default.check(width: inputWidth, height: 1, bytesPerPixel: 16)
        self.inputWidth = inputWidth
        self.inputHeight = inputHeight
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        columns = try WeightTableCache.shared.table(
            inputSize: inputWidth, boxStart: boxX, boxLength: boxWidth, count: outputWidth, filter: filter)
        rows = try WeightTableCache.shared.table(
            inputSize: inputHeight, boxStart: boxY, boxLength: boxHeight, count: outputHeight, filter: filter)
        let sourceColumns = columns.sourceRange
        firstColumn = sourceColumns.lowerBound
        columnCount = sourceColumns.count
        taps = min((columns.widestTapCount + 1) & ~1, columns.stride)
        let window = rows.slidingWindow
        // A batch may filter up to three rows past what the oldest pending output still needs.
        let capacity = window.mostAtOnce + 4
        try DecodingLimits.default.check(width: outputWidth, height: capacity + 1, bytesPerPixel: 4)
        lowestRowStillNeeded = window.lowestStillNeeded
        rowsEnd = window.end
        self.capacity = capacity
        ring = .allocate(capacity: (capacity + 1) * outputWidth)
        ring.initialize(repeating: 0, count: (capacity + 1) * outputWidth)
        batch = .allocate(capacity: columnCount + taps)
        batch.initialize(repeating: .zero, count: columnCount + taps)
        sums = .allocate(capacity: outputWidth)
        sums.initialize(repeating: 0, count: outputWidth)
        output = [UInt8](repeating: 0, count: outputWidth * outputHeight)
    }

    deinit {
        ring.deallocate()
        batch.deallocate()
        sums.deallocate()
    }

    /// Whether every output row has been written.
    var isComplete: Bool { nextOutputRow == outputHeight }

    /// Source rows taken so far.
    var rowsConsumed: Int { nextSourceRow }

    /// Takes the next source row (`inputWidth` samples). Throws past the plane's last row.
    func consume(_ row: UnsafePointer<UInt8>) throws {
        guard nextSourceRow < inputHeight else {
            throw TroveError.invalidConfiguration("plane resample: more rows than the plane's \(inputHeight)")
        }
        let y = nextSourceRow
        nextSourceRow += 1
        guard nextOutputRow < outputHeight, y >= lowestRowStillNeeded[nextOutputRow], y < rowsEnd else { return }
        // A batch holds consecutive rows; one that is not the next (a row no output reads was skipped) starts
        // a batch of its own.
        if batchRows > 0 && y != batchStart + batchRows { flush() }
        if batchRows == 0 { batchStart = y }
        let lane = batchRows
        let samples = row + firstColumn
        for x in 0..<columnCount { batch[x][lane] = Float(samples[x]) }
        batchRows += 1
        if batchRows == 4 || y + 1 == rowsEnd || y + 1 == inputHeight { flush() }
    }

    /// Filters the batch's rows across into the ring, then writes every output row whose rows are all in.
    private func flush() {
        switch taps {
        case 2: filterAcross(taps: 2)
        case 4: filterAcross(taps: 4)
        case 6: filterAcross(taps: 6)
        case 8: filterAcross(taps: 8)
        case 10: filterAcross(taps: 10)
        case 12: filterAcross(taps: 12)
        default: filterAcross(taps: taps)
        }
        let filteredEnd = batchStart + batchRows
        batchRows = 0
        while nextOutputRow < outputHeight, rows.starts[nextOutputRow] + rows.tapCounts[nextOutputRow] <= filteredEnd {
            emitRow(nextOutputRow)
            nextOutputRow += 1
        }
    }

    /// The horizontal pass over the batch: `taps` (even) weighted columns per output, four rows at once, each
    /// row's sums stored in its ring slot. Every output reads the same number of taps, so the loop unrolls.
    @inline(__always)
    private func filterAcross(taps: Int) {
        let starts = columns.starts, stride = columns.stride, outW = outputWidth, first = firstColumn
        var weights = UnsafePointer(columns.weights)
        // Lanes past the batch's rows go to the scratch row after the ring.
        func slot(_ lane: Int) -> UnsafeMutablePointer<Float> {
            lane < batchRows ? ring + ((batchStart + lane) % capacity) * outW : ring + capacity * outW
        }
        let slot0 = slot(0), slot1 = slot(1), slot2 = slot(2), slot3 = slot(3)
        for j in 0..<outW {
            let line = UnsafePointer(batch) + (starts[j] &- first)
            // Two accumulators so consecutive taps do not wait on each other's addition.
            var even = SIMD4<Float>.zero, odd = SIMD4<Float>.zero
            var k = 0
            while k < taps {
                even += line[k] * weights[k]
                odd += line[k &+ 1] * weights[k &+ 1]
                k &+= 2
            }
            let sum = even + odd
            slot0[j] = sum[0]
            slot1[j] = sum[1]
            slot2[j] = sum[2]
            slot3[j] = sum[3]
            weights += stride
        }
    }

    /// The vertical pass for output row `i`, whose source rows are all in the ring: two rows a sweep, which
    /// halves the traffic on the sums (an odd last row pairs with itself at the table's padding weight, 0).
    private func emitRow(_ i: Int) {
        let start = rows.starts[i], count = rows.tapCounts[i]
        let weights = rows.weights + i * rows.stride
        let outW = outputWidth, sums = self.sums
        var k = 0
        while k < count {
            let w0 = weights[k], w1 = k + 1 < count ? weights[k + 1] : 0
            let line0 = UnsafePointer(ring + ((start + k) % capacity) * outW)
            let line1 = k + 1 < count ? UnsafePointer(ring + ((start + k + 1) % capacity) * outW) : line0
            if k == 0 {
                for j in 0..<outW { sums[j] = line0[j] * w0 + line1[j] * w1 }
            } else {
                for j in 0..<outW { sums[j] += line0[j] * w0 + line1[j] * w1 }
            }
            k += 2
        }
        output.withUnsafeMutableBufferPointer { output in
            guard let base = output.baseAddress else { return }
            let row = base + i * outW
            for j in 0..<outW { row[j] = Self.roundedByte(sums[j]) }
        }
    }

    /// floor(clamped + 0.5) by float arithmetic alone, so the loop that calls it vectorises (a conversion that
    /// can trap does not): adding 2^23 rounds to the nearest integer, a compare makes that the floor, and the
    /// integer is the low byte of the sum's bits. Filters with negative lobes overshoot, hence the clamp.
    @inline(__always)
    private static func roundedByte(_ value: Float) -> UInt8 {
        let magic: Float = 8_388_608
        let shifted = min(max(value, 0), 255) + 0.5
        let nearest = (shifted + magic) - magic
        let floor = nearest > shifted ? nearest - 1 : nearest
        return UInt8(truncatingIfNeeded: (floor + magic).bitPattern)
    }
}
