import TroveCore

/// A separable resample of one 8-bit plane fed row by row. Rows are taken eight at a time into the lanes of
/// one line of `SIMD8<Float>`, so the horizontal pass filters eight rows with each tap's weight (one AVX2
/// register, or two SSE2 ones); the filtered rows go into a ring, and each output row is written once the
/// rows its vertical filter reads are in, sixteen samples at a time summed over every row in registers. The
/// weight tables are `Resampler`'s own (`WeightTable`, shared through `WeightTableCache`), so a luma plane
/// gets the taps the RGBA path gives each channel.
final class PlaneResampler {
    let inputWidth: Int
    let inputHeight: Int
    let outputWidth: Int
    let outputHeight: Int
    private let columns: WeightTable
    private let rows: WeightTable
    /// The horizontal weights spread across four lanes (the RGBA resize's), each taken twice for the eight rows.
    private let columnSplats: BroadcastWeights
    private let firstColumn: Int
    private let columnCount: Int
    /// Whether output column j is source column `firstColumn + j` at weight 1 (a reduced decode whose width
    /// is already the output's): rows then go straight into the ring as Floats, with no horizontal pass.
    private let copiesAcross: Bool
    /// The most taps an output column reads, rounded up to a pair (never past the table's stride).
    private let taps: Int
    /// For each output row, the lowest source row it or any later output row reads.
    private let lowestRowStillNeeded: [Int]
    /// One past the last source row any output reads.
    private let rowsEnd: Int
    private let capacity: Int
    /// Floats between filtered rows in the ring: `outputWidth` rounded up to the vertical pass's sixteen, the
    /// padding zero, so a row's last block reads no further than its own slot.
    private let rowStride: Int
    /// Filtered rows, source row y in slot y % capacity, `rowStride` Floats each, then one scratch row.
    private let ring: UnsafeMutablePointer<Float>
    /// Up to `batchSize` source rows as they came (the columns read), `stagedStride` bytes apart, turned into
    /// `batch`'s lanes when the batch is full: a transposition of whole blocks instead of a lane a sample.
    private let staged: UnsafeMutablePointer<UInt8>
    /// `columnCount` rounded up to eight, the transposition's block.
    private let stagedStride: Int
    /// The batch's rows as Floats, row r in lane r, then `taps` zero columns the last outputs' zero-weighted
    /// taps may read.
    private let batch: UnsafeMutablePointer<SIMD8<Float>>
    /// Where each lane's filtered row goes: its ring slot, or the scratch row past the ring for lanes the
    /// batch does not fill.
    private let laneSlots: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private var batchStart = 0
    private var batchRows = 0
    /// The vertical pass's rows and weights for the output row being written, one more for an odd count.
    private let tapLines: UnsafeMutablePointer<UnsafePointer<Float>>
    private let tapWeights: UnsafeMutablePointer<SIMD4<Float>>
    /// Whether the passes run `ResampleKernels`' AVX2 kernels (the same bytes as the Swift loops).
    private let usesKernels: Bool
    private(set) var output: [UInt8]
    private var nextSourceRow = 0
    private var nextOutputRow = 0

    /// Resamples the region starting at `boxX, boxY` and spanning `boxWidth x boxHeight` of an
    /// `inputWidth x inputHeight` plane (in its own samples; the region may pass its edges, where taps are
    /// dropped: by a fraction, or by an odd side's last half-sized chroma sample) to
    /// `outputWidth x outputHeight`. Throws when the sizes are empty or over the limits. `kernels`: whether
    /// the passes may use `ResampleKernels` (tests turn it off to compare).
    init(
        inputWidth: Int, inputHeight: Int, boxX: Double, boxY: Double, boxWidth: Double, boxHeight: Double,
        outputWidth: Int, outputHeight: Int, filter: ResizeTransformer.Filter,
        kernels: Bool = ResampleKernels.available
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
        usesKernels = kernels && ResampleKernels.available
        columns = try WeightTableCache.shared.table(
            inputSize: inputWidth, boxStart: boxX, boxLength: boxWidth, count: outputWidth, filter: filter)
        rows = try WeightTableCache.shared.table(
            inputSize: inputHeight, boxStart: boxY, boxLength: boxHeight, count: outputHeight, filter: filter)
        let sourceColumns = columns.sourceRange
        firstColumn = sourceColumns.lowerBound
        columnCount = sourceColumns.count
        taps = min((columns.widestTapCount + 1) & ~1, columns.stride)
        copiesAcross = columns.isCopy
        columnSplats = try BroadcastWeights(columns, taps: taps)
        let window = rows.slidingWindow
        // A batch may filter up to seven rows past what the oldest pending output still needs.
        let capacity = window.mostAtOnce + Self.batchSize
        let rowStride = (outputWidth + 15) & ~15
        try DecodingLimits.default.check(width: rowStride, height: capacity + 1, bytesPerPixel: 4)
        lowestRowStillNeeded = window.lowestStillNeeded
        rowsEnd = window.end
        self.capacity = capacity
        self.rowStride = rowStride
        ring = .allocate(capacity: (capacity + 1) * rowStride)
        ring.initialize(repeating: 0, count: (capacity + 1) * rowStride)
        batch = .allocate(capacity: columnCount + taps)
        batch.initialize(repeating: .zero, count: columnCount + taps)
        stagedStride = (columnCount + 7) & ~7
        staged = .allocate(capacity: Self.batchSize * stagedStride)
        staged.initialize(repeating: 0, count: Self.batchSize * stagedStride)
        laneSlots = .allocate(capacity: Self.batchSize)
        laneSlots.initialize(repeating: ring, count: Self.batchSize)
        let mostRows = rows.widestTapCount + 1
        tapLines = .allocate(capacity: mostRows)
        tapLines.initialize(repeating: UnsafePointer(ring), count: mostRows)
        tapWeights = .allocate(capacity: mostRows)
        tapWeights.initialize(repeating: .zero, count: mostRows)
        output = [UInt8](repeating: 0, count: outputWidth * outputHeight)
    }

    deinit {
        ring.deallocate()
        batch.deallocate()
        staged.deallocate()
        laneSlots.deallocate()
        tapLines.deallocate()
        tapWeights.deallocate()
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
        if copiesAcross {
            let slot = ring + (y % capacity) * rowStride, samples = row + firstColumn
            for x in 0..<outputWidth { slot[x] = Float(samples[x]) }
            emitRows(filteredThrough: y + 1)
            return
        }
        // A batch holds consecutive rows; one that is not the next (a row no output reads was skipped) starts
        // a batch of its own.
        if batchRows > 0 && y != batchStart + batchRows { flush() }
        if batchRows == 0 { batchStart = y }
        (staged + batchRows * stagedStride).update(from: row + firstColumn, count: columnCount)
        batchRows += 1
        if batchRows == Self.batchSize || y + 1 == rowsEnd || y + 1 == inputHeight { flush() }
    }

    /// Source rows filtered across at once, one to a lane.
    static let batchSize = 8

    /// Filters the batch's rows across into the ring, then writes every output row whose rows are all in.
    private func flush() {
        for lane in 0..<Self.batchSize {
            // Lanes past the batch's rows go to the scratch row after the ring.
            laneSlots[lane] =
                lane < batchRows ? ring + ((batchStart + lane) % capacity) * rowStride : ring + capacity * rowStride
        }
        if usesKernels {
            ResampleKernels.transpose(staged, stride: stagedStride, columns: columnCount, into: batch)
            ResampleKernels.filterAcross(
                batch, starts: columns.starts, firstColumn: firstColumn, weights: columnSplats.splats, taps: taps,
                outputs: outputWidth, into: laneSlots)
        } else {
            transposeStaged()
            filterAcross()
        }
        let filteredEnd = batchStart + batchRows
        batchRows = 0
        emitRows(filteredThrough: filteredEnd)
    }

    /// The staged rows into the batch's lanes (lanes past the batch's rows get what was staged there before).
    private func transposeStaged() {
        let r0 = UnsafePointer(staged), stride = stagedStride
        let (r1, r2, r3, r4) = (r0 + stride, r0 + 2 * stride, r0 + 3 * stride, r0 + 4 * stride)
        let (r5, r6, r7) = (r0 + 5 * stride, r0 + 6 * stride, r0 + 7 * stride)
        for x in 0..<columnCount {
            batch[x] = SIMD8(
                Float(r0[x]), Float(r1[x]), Float(r2[x]), Float(r3[x]), Float(r4[x]), Float(r5[x]), Float(r6[x]),
                Float(r7[x]))
        }
    }

    /// `filterAcross(taps:)` with the tap count a constant where it is a common one, so its loop unrolls.
    private func filterAcross() {
        switch taps {
        case 2: filterAcross(taps: 2)
        case 4: filterAcross(taps: 4)
        case 6: filterAcross(taps: 6)
        case 8: filterAcross(taps: 8)
        case 10: filterAcross(taps: 10)
        case 12: filterAcross(taps: 12)
        default: filterAcross(taps: taps)
        }
    }

    /// Writes every output row whose source rows are all filtered, those before `filteredEnd` being in.
    private func emitRows(filteredThrough filteredEnd: Int) {
        while nextOutputRow < outputHeight, rows.starts[nextOutputRow] + rows.tapCounts[nextOutputRow] <= filteredEnd {
            emitRow(nextOutputRow)
            nextOutputRow += 1
        }
    }

    /// The horizontal pass over the batch: `taps` (even) weighted columns per output, eight rows at once, each
    /// row's sums stored in its lane's slot. Every output reads the same number of taps, so the loop unrolls.
    @inline(__always)
    private func filterAcross(taps: Int) {
        let starts = columns.starts, outW = outputWidth, first = firstColumn, slots = laneSlots
        var weights = UnsafePointer(columnSplats.splats)
        for j in 0..<outW {
            let line = UnsafePointer(batch) + (starts[j] &- first)
            // Two accumulators so consecutive taps do not wait on each other's addition.
            var even = SIMD8<Float>.zero, odd = SIMD8<Float>.zero
            var k = 0
            while k < taps {
                even += line[k] * SIMD8(lowHalf: weights[k], highHalf: weights[k])
                odd += line[k &+ 1] * SIMD8(lowHalf: weights[k &+ 1], highHalf: weights[k &+ 1])
                k &+= 2
            }
            let sum = even + odd
            for lane in 0..<Self.batchSize { slots[lane][j] = sum[lane] }
            weights += taps
        }
    }

    /// The vertical pass for output row `i`, whose source rows are all in the ring: sixteen samples at a time,
    /// summed over every row in registers and stored as bytes. Rows go in pairs, so the next pair's sum does
    /// not wait on this one's; an odd last row pairs with itself at weight 0.
    private func emitRow(_ i: Int) {
        let start = rows.starts[i], count = rows.tapCounts[i]
        let weights = rows.weights + i * rows.stride
        let lines = tapLines, splats = tapWeights
        for k in 0..<count {
            lines[k] = UnsafePointer(ring + ((start + k) % capacity) * rowStride)
        }
        let paired = (count + 1) & ~1
        if paired > count { lines[count] = lines[count - 1] }
        let outW = outputWidth
        output.withUnsafeMutableBufferPointer { output in
            guard let base = output.baseAddress else { return }
            let row = base + i * outW
            if usesKernels {
                // The kernel reads the table's weights; the one past an odd count is 0.
                assert(count % 2 == 0 || weights[count] == 0, "an odd row count pairs with a zero padding weight")
                ResampleKernels.weightedRows(lines, weights: weights, paired: paired, floats: outW, into: row)
                return
            }
            for k in 0..<count { splats[k] = SIMD4(repeating: weights[k]) }
            if paired > count { splats[count] = .zero }
            var j = 0
            while j < outW {
                var sum = Self.pairSum(lines, splats, pair: 0, at: j)
                var k = 2
                while k < paired {
                    sum += Self.pairSum(lines, splats, pair: k, at: j)
                    k &+= 2
                }
                let bytes = Resampler.roundedBytes(sum)
                if j &+ 16 <= outW {
                    UnsafeMutableRawPointer(row + j).storeBytes(of: bytes, as: SIMD16<UInt8>.self)
                } else {
                    // The row's last samples: the ring's padding columns gave the rest of the block.
                    for lane in 0..<(outW &- j) { row[j &+ lane] = bytes[lane] }
                }
                j &+= 16
            }
        }
    }

    /// Rows `pair` and `pair + 1`, weighted, summed for the sixteen samples from `j`.
    @inline(__always)
    private static func pairSum(
        _ lines: UnsafePointer<UnsafePointer<Float>>, _ splats: UnsafePointer<SIMD4<Float>>, pair k: Int, at j: Int
    ) -> SIMD16<Float> {
        let first = UnsafeRawPointer(lines[k] + j).loadUnaligned(as: SIMD16<Float>.self)
        let second = UnsafeRawPointer(lines[k &+ 1] + j).loadUnaligned(as: SIMD16<Float>.self)
        return first * spread(splats[k]) + second * spread(splats[k &+ 1])
    }

    /// A weight across sixteen lanes, from its four-lane splat (register moves, not a shuffle per lane).
    @inline(__always)
    private static func spread(_ splat: SIMD4<Float>) -> SIMD16<Float> {
        let half = SIMD8(lowHalf: splat, highHalf: splat)
        return SIMD16(lowHalf: half, highHalf: half)
    }
}
