import TroveCore

/// Carries out a `ResizePlan` on tightly packed straight-alpha RGBA8 pixels: a horizontal pass into
/// an intermediate buffer of premultiplied Float pixels, then a vertical pass that un-premultiplies
/// (unless every row it read was opaque), rounds and clamps. One resampler serves every frame of an
/// animation, so the weight tables are built once. `StreamingResizer` drives the same row passes from
/// rows as a decoder delivers them.
final class Resampler {
    let sourceWidth: Int
    let sourceHeight: Int
    let plan: ResizePlan
    private let filter: ResizeTransformer.Filter
    private let columns: WeightTable
    /// The row weights: the vertical pass (`Resampler+VerticalPass.swift`) reads them.
    let rows: WeightTable
    private let sourceColumns: Range<Int>
    /// The most taps an output column reads, rounded up to a pair: the horizontal pass's fixed tap count.
    private let horizontalTaps: Int
    /// The column weights, `horizontalTaps` to an output, each spread over a pixel's four channels.
    private let columnSplats: BroadcastWeights
    /// For each output row, the lowest source row it or any later output row reads.
    private let lowestRowStillNeeded: [Int]
    /// Rows the ring of horizontally filtered rows holds: the most ever needed at once.
    private let ringCapacity: Int
    /// Whether the vertical pass over opaque rows runs `ResampleKernels`' AVX2 kernel (the same bytes).
    let usesKernels: Bool

    /// `kernels`: whether the vertical pass may use `ResampleKernels` (tests turn it off to compare).
    init(
        sourceWidth: Int, sourceHeight: Int, plan: ResizePlan, filter: ResizeTransformer.Filter,
        kernels: Bool = ResampleKernels.available
    ) throws {
        usesKernels = kernels && ResampleKernels.available
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.plan = plan
        self.filter = filter
        columns = try WeightTableCache.shared.table(
            inputSize: sourceWidth, boxStart: plan.box.x, boxLength: plan.box.width,
            count: plan.outputWidth, filter: filter)
        rows = try WeightTableCache.shared.table(
            inputSize: sourceHeight, boxStart: plan.box.y, boxLength: plan.box.height,
            count: plan.outputHeight, filter: filter)
        sourceColumns = columns.sourceRange
        // The widest tap count is at most the table's stride, which is even, so this never passes it; the
        // weights past each output's own taps are zero.
        horizontalTaps = (columns.widestTapCount + 1) & ~1
        columnSplats = try BroadcastWeights(columns, taps: horizontalTaps)

        let window = rows.slidingWindow
        lowestRowStillNeeded = window.lowestStillNeeded
        let capacity = window.mostAtOnce
        ringCapacity = capacity
        // The ring holds 16 bytes (4 Floats) per pixel; refuse one that would not fit the limits.
        try DecodingLimits.default.check(width: plan.outputWidth, height: capacity, bytesPerPixel: 16)
    }

    /// Resamples one image's pixels (`sourceWidth * sourceHeight * 4` bytes).
    func resample(_ pixels: [UInt8]) -> [UInt8] {
        precondition(pixels.count >= sourceWidth * sourceHeight * 4, "callers pass whole RGBA8 images")
        let byteCount = plan.outputWidth * plan.outputHeight * 4
        // Every path below writes every output byte, so the buffer need not be zeroed first.
        return [UInt8](unsafeUninitializedCapacity: byteCount) { output, initialized in
            pixels.withUnsafeBytes { source in
                guard let src = source.baseAddress, let dst = output.baseAddress else {
                    // Unreachable for non-empty images; even so, never hand back uninitialised bytes.
                    output.initialize(repeating: 0)
                    return
                }
                let destination = UnsafeMutableRawPointer(dst)
                if filter == .nearest {
                    copyNearest(from: src, to: destination)
                } else if plan.isPlainCrop {
                    copyCrop(from: src, to: destination)
                } else {
                    convolve(from: src, to: destination)
                }
            }
            initialized = byteCount
        }
    }

    /// Nearest neighbour: each output pixel is a copy of one source pixel.
    private func copyNearest(from src: UnsafeRawPointer, to dst: UnsafeMutableRawPointer) {
        let outW = plan.outputWidth
        for i in 0..<plan.outputHeight {
            let sourceRow = src + rows.starts[i] * sourceWidth * 4
            let destinationRow = dst + i * outW * 4
            for j in 0..<outW {
                let pixel = (sourceRow + columns.starts[j] * 4).loadUnaligned(as: UInt32.self)
                (destinationRow + j * 4).storeBytes(of: pixel, as: UInt32.self)
            }
        }
    }

    /// Fill that needs no scaling (the source already covers the box): only crop.
    private func copyCrop(from src: UnsafeRawPointer, to dst: UnsafeMutableRawPointer) {
        let rowBytes = plan.outputWidth * 4
        let cropX = Int(plan.box.x), cropY = Int(plan.box.y)
        for i in 0..<plan.outputHeight {
            let from = src + ((cropY + i) * sourceWidth + cropX) * 4
            (dst + i * rowBytes).copyMemory(from: from, byteCount: rowBytes)
        }
    }

    /// Horizontal pass into a ring of filtered rows, filled just ahead of the vertical pass that reads
    /// it: the intermediate stays small enough to live in cache, whatever the image size.
    private func convolve(from src: UnsafeRawPointer, to dst: UnsafeMutableRawPointer) {
        let outW = plan.outputWidth
        let window = makeWindow()
        var nextRow = 0
        for i in 0..<plan.outputHeight {
            nextRow = max(nextRow, lowestRowStillNeeded[i])
            while nextRow < rows.starts[i] + rows.tapCounts[i] {
                filterRow(
                    (src + nextRow * sourceWidth * 4).assumingMemoryBound(to: UInt8.self), row: nextRow, in: window)
                nextRow += 1
            }
            emitRow(i, from: window, into: (dst + i * outW * 4).assumingMemoryBound(to: UInt8.self))
        }
    }

    /// The source rows output row `i` reads.
    func sourceRows(forOutputRow i: Int) -> Range<Int> {
        rows.starts[i]..<(rows.starts[i] + rows.tapCounts[i])
    }

    /// The lowest source row output row `i`, or any later one, reads: rows above it may leave the window.
    func lowestSourceRow(neededFrom i: Int) -> Int { lowestRowStillNeeded[i] }

    /// A window big enough for this resample's vertical pass.
    func makeWindow() -> RowWindow {
        RowWindow(
            capacity: ringCapacity, outputWidth: plan.outputWidth, sourceColumns: sourceColumns.count,
            linePadding: horizontalTaps)
    }

    /// Premultiplies source row `y` (`sourceWidth` RGBA8 pixels) into the window's line, then filters it
    /// across into the window's slot for that row.
    func filterRow(_ sourceRow: UnsafePointer<UInt8>, row y: Int, in window: RowWindow) {
        let line = window.line
        let firstColumn = sourceColumns.lowerBound
        let inverse255: Float = 1 / 255
        // Premultiply once per row: every output column then reads each pixel several times. Converting
        // the row as a flat run of bytes lets the compiler vectorise it; per-pixel SIMD4 conversion does not.
        let columnCount = sourceColumns.count
        let sourceBytes = sourceRow + firstColumn * 4
        line.withMemoryRebound(to: Float.self, capacity: columnCount * 4) { floats in
            Self.convertBytes(sourceBytes, count: columnCount * 4, into: floats)
        }
        // An opaque row (every row of a JPEG) is its own premultiplied form: one branch-free check instead
        // of a test per pixel.
        let opaque = Self.isOpaque(sourceBytes, pixels: columnCount)
        window.opaque[window.slot(y)] = opaque
        if !opaque {
            for x in 0..<columnCount {
                let alpha = line[x][3]
                if alpha != 255 {
                    var premultiplied = line[x] * (alpha * inverse255)
                    premultiplied[3] = alpha
                    line[x] = premultiplied
                }
            }
        }
        // Every output reads the same number of taps, so the loop over them unrolls; the extra ones weigh 0.
        let destination = window.row(y)
        switch horizontalTaps {
        case 2: filterAcross(line, taps: 2, into: destination)
        case 4: filterAcross(line, taps: 4, into: destination)
        case 6: filterAcross(line, taps: 6, into: destination)
        case 8: filterAcross(line, taps: 8, into: destination)
        case 10: filterAcross(line, taps: 10, into: destination)
        case 12: filterAcross(line, taps: 12, into: destination)
        // A lanczos3 shrink by just over 2 (shrink-on-load's usual outcome) reads 13 or 14 taps.
        case 14: filterAcross(line, taps: 14, into: destination)
        case 16: filterAcross(line, taps: 16, into: destination)
        default: filterAcross(line, taps: horizontalTaps, into: destination)
        }
    }

    /// The horizontal pass over a premultiplied line: `taps` (even) weighted pixels per output column. The
    /// loop is bound by loads, not arithmetic, so from 8 taps on it takes two columns at a time: when a shrink
    /// by about 1, 2 or 3 makes the second column start that many pixels after the first, the step is a
    /// constant here and the pixels the two share are loaded once. Below 8 taps they share too few to pay
    /// for it (measured slower at 4 and 6).
    @inline(__always)
    private func filterAcross(
        _ line: UnsafeMutablePointer<SIMD4<Float>>, taps: Int, into destination: UnsafeMutablePointer<SIMD4<Float>>
    ) {
        let firstColumn = sourceColumns.lowerBound
        let starts = columns.starts, outW = plan.outputWidth
        var weights = UnsafePointer(columnSplats.splats)
        var j = 0
        if taps >= 8 {
            while j &+ 1 < outW {
                let pixels = UnsafePointer(line) + (starts[j] &- firstColumn)
                let output = destination + j
                switch starts[j &+ 1] &- starts[j] {
                case 1: Self.filterPair(pixels, step: 1, taps: taps, weights: weights, into: output)
                case 2: Self.filterPair(pixels, step: 2, taps: taps, weights: weights, into: output)
                case 3: Self.filterPair(pixels, step: 3, taps: taps, weights: weights, into: output)
                case let step: Self.filterPair(pixels, step: step, taps: taps, weights: weights, into: output)
                }
                weights += 2 &* taps
                j &+= 2
            }
        }
        while j < outW {
            // One column as `filterPair` sums each of its two.
            let pixels = UnsafePointer(line) + (starts[j] &- firstColumn)
            var even = pixels[0] * weights[0], odd = pixels[1] * weights[1]
            var k = 2
            while k < taps {
                even += pixels[k] * weights[k]
                odd += pixels[k &+ 1] * weights[k &+ 1]
                k &+= 2
            }
            destination[j] = even + odd
            weights += taps
            j &+= 1
        }
    }

    /// Two neighbouring output columns, the second starting `step` pixels after the first, each summed as
    /// one column alone is: even and odd taps in two accumulators, so consecutive taps do not wait on each
    /// other's addition. Starting from the first products rather than from zero can only turn a sum that is
    /// zero into a zero of the other sign, which rounds to the same byte.
    @inline(__always)
    private static func filterPair(
        _ pixels: UnsafePointer<SIMD4<Float>>, step: Int, taps: Int, weights: UnsafePointer<SIMD4<Float>>,
        into destination: UnsafeMutablePointer<SIMD4<Float>>
    ) {
        let next = pixels + step, nextWeights = weights + taps
        var even = pixels[0] * weights[0], odd = pixels[1] * weights[1]
        var nextEven = next[0] * nextWeights[0], nextOdd = next[1] * nextWeights[1]
        var k = 2
        while k < taps {
            even += pixels[k] * weights[k]
            odd += pixels[k &+ 1] * weights[k &+ 1]
            nextEven += next[k] * nextWeights[k]
            nextOdd += next[k &+ 1] * nextWeights[k &+ 1]
            k &+= 2
        }
        destination[0] = even + odd
        destination[1] = nextEven + nextOdd
    }

    /// Each byte as a Float. Sixteen bytes a step, widened through SIMD types: the compiler's own
    /// vectorisation of a byte-at-a-time loop took eight a step with narrower loads.
    private static func convertBytes(
        _ bytes: UnsafePointer<UInt8>, count: Int, into floats: UnsafeMutablePointer<Float>
    ) {
        let source = UnsafeRawPointer(bytes)
        let destination = UnsafeMutableRawPointer(floats)
        /// Four widened bytes as Floats, at float index `index`.
        func store(_ quarter: SIMD4<UInt16>, at index: Int) {
            destination.storeBytes(
                of: SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: quarter)), toByteOffset: index * 4,
                as: SIMD4<Float>.self)
        }
        var i = 0
        while i + 16 <= count {
            let chunk = source.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
            let low = SIMD8<UInt16>(truncatingIfNeeded: chunk.lowHalf)
            let high = SIMD8<UInt16>(truncatingIfNeeded: chunk.highHalf)
            store(low.lowHalf, at: i)
            store(low.highHalf, at: i + 4)
            store(high.lowHalf, at: i + 8)
            store(high.highHalf, at: i + 12)
            i += 16
        }
        while i < count {
            floats[i] = Float(bytes[i])
            i += 1
        }
    }

    /// Whether every pixel's alpha byte is 255: the AND of all pixels keeps 255 there only then.
    private static func isOpaque(_ bytes: UnsafePointer<UInt8>, pixels: Int) -> Bool {
        let source = UnsafeRawPointer(bytes)
        var all = UInt32.max
        for x in 0..<pixels {
            all &= source.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)
        }
        return withUnsafeBytes(of: all) { $0[3] } == 255
    }
}
