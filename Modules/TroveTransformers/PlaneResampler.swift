import TroveCore

/// A separable resample of one 8-bit plane fed row by row: each row is filtered across as it arrives into a
/// ring of Float rows, and each output row is written once the rows its vertical filter reads are in. The
/// weight tables are `Resampler`'s own (`WeightTable`, shared through `WeightTableCache`), so a luma plane
/// gets the taps the RGBA path gives each channel.
final class PlaneResampler {
    let inputWidth: Int
    let inputHeight: Int
    let outputWidth: Int
    let outputHeight: Int
    private let columns: WeightTable
    private let rows: WeightTable
    private let firstColumn: Int
    /// The most taps an output column reads, rounded up to a pair (never past the table's stride).
    private let taps: Int
    /// For each output row, the lowest source row it or any later output row reads.
    private let lowestRowStillNeeded: [Int]
    private let capacity: Int
    private var ring: [Float]
    /// One source row as Floats, then `taps` zeros the last outputs' zero-weighted taps may read.
    private var line: [Float]
    private var sums: [Float]
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
        taps = min((columns.widestTapCount + 1) & ~1, columns.stride)
        var lowest = [Int](repeating: 0, count: outputHeight)
        var running = Int.max
        for i in stride(from: outputHeight - 1, through: 0, by: -1) {
            running = min(running, rows.starts[i])
            lowest[i] = running
        }
        var capacity = 1, highestEnd = 0
        for i in 0..<outputHeight {
            highestEnd = max(highestEnd, rows.starts[i] + rows.tapCounts[i])
            capacity = max(capacity, highestEnd - lowest[i])
        }
        try DecodingLimits.default.check(width: outputWidth, height: capacity, bytesPerPixel: 4)
        lowestRowStillNeeded = lowest
        self.capacity = capacity
        ring = [Float](repeating: 0, count: capacity * outputWidth)
        line = [Float](repeating: 0, count: sourceColumns.count + taps)
        sums = [Float](repeating: 0, count: outputWidth)
        output = [UInt8](repeating: 0, count: outputWidth * outputHeight)
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
        guard nextOutputRow < outputHeight, y >= lowestRowStillNeeded[nextOutputRow] else { return }
        filterRow(row, into: (y % capacity) * outputWidth)
        while nextOutputRow < outputHeight, rows.starts[nextOutputRow] + rows.tapCounts[nextOutputRow] <= y + 1 {
            emitRow(nextOutputRow)
            nextOutputRow += 1
        }
    }

    /// The horizontal pass: the row's samples as Floats, then `taps` weighted samples per output column.
    private func filterRow(_ row: UnsafePointer<UInt8>, into slot: Int) {
        let count = line.count - taps
        let first = firstColumn, taps = self.taps, outW = outputWidth
        let starts = columns.starts, stride = columns.stride, weights = columns.weights
        line.withUnsafeMutableBufferPointer { line in
            for x in 0..<count { line[x] = Float(row[first + x]) }
            ring.withUnsafeMutableBufferPointer { ring in
                for j in 0..<outW {
                    let base = starts[j] &- first
                    let w = weights + j * stride
                    var even: Float = 0, odd: Float = 0
                    var k = 0
                    while k < taps {
                        even += line[base &+ k] * w[k]
                        odd += line[base &+ k &+ 1] * w[k &+ 1]
                        k &+= 2
                    }
                    ring[slot + j] = even + odd
                }
            }
        }
    }

    /// The vertical pass for output row `i`, whose source rows are all in the ring.
    private func emitRow(_ i: Int) {
        let start = rows.starts[i], count = rows.tapCounts[i]
        let weights = rows.weights + i * rows.stride
        let outW = outputWidth, capacity = self.capacity
        ring.withUnsafeBufferPointer { ring in
            sums.withUnsafeMutableBufferPointer { sums in
                for k in 0..<count {
                    let w = weights[k]
                    let from = ((start + k) % capacity) * outW
                    if k == 0 {
                        for j in 0..<outW { sums[j] = ring[from + j] * w }
                    } else {
                        for j in 0..<outW { sums[j] += ring[from + j] * w }
                    }
                }
                output.withUnsafeMutableBufferPointer { output in
                    let row = i * outW
                    for j in 0..<outW { output[row + j] = Self.roundedByte(sums[j]) }
                }
            }
        }
    }

    /// Rounded half up and clamped to 0...255 (filters with negative lobes overshoot).
    @inline(__always)
    private static func roundedByte(_ value: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: Int32(min(max(value, 0), 255) + 0.5))
    }
}
