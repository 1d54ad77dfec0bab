import TroveCore

/// For each output pixel along one axis: the first source pixel it reads, how many it reads, and
/// their normalised weights. Built once per pass so the pixel loops only multiply and add.
///
/// Follows the approach of Pillow and libvips: the kernel is stretched by the downscale ratio, so
/// every source pixel contributes when shrinking (no aliasing). Taps past an edge are dropped and the
/// rest renormalised, as Pillow does: near a border the kernel leans on the pixels that exist instead
/// of repeating the edge pixel, which keeps border rows within Pillow's rounding.
///
/// `@unchecked Sendable`: its memory is written only in `init` and read-only afterwards, so resizes on
/// several threads may share one (`WeightTableCache`).
final class WeightTable: @unchecked Sendable {
    /// Number of output pixels described.
    let count: Int
    /// Distance between the weights of consecutive outputs in `weights`.
    let stride: Int
    let starts: UnsafeMutablePointer<Int>
    let tapCounts: UnsafeMutablePointer<Int>
    let weights: UnsafeMutablePointer<Float>

    /// `count` outputs spread over `boxStart ..< boxStart + boxLength` of an axis of `inputSize` pixels
    /// (the box's edges may fall between pixels, as with Pillow's `resize(box:)`).
    init(inputSize: Int, boxStart: Double, boxLength: Double, count: Int, filter: ResizeTransformer.Filter) throws {
        precondition(inputSize > 0 && boxLength > 0 && count > 0, "weight table needs non-empty sizes")
        let scale = boxLength / Double(count)
        // Nearest neighbour picks one pixel, so its kernel is never stretched.
        let filterScale = filter == .nearest ? 1 : max(scale, 1)
        let support = filter.support * filterScale
        // An even stride: the horizontal pass reads taps in pairs, and the zero weights past an output's
        // own taps pad its last pair.
        let maxTaps = (min(inputSize, Int((2 * support).rounded(.up)) + 2) + 1) & ~1
        // A huge shrink of a huge axis needs count x maxTaps weights: refuse what the limits would.
        try DecodingLimits.default.check(width: count, height: maxTaps)

        self.count = count
        self.stride = maxTaps
        starts = .allocate(capacity: count)
        tapCounts = .allocate(capacity: count)
        weights = .allocate(capacity: count * maxTaps)
        weights.initialize(repeating: 0, count: count * maxTaps)
        let scratch = UnsafeMutablePointer<Double>.allocate(capacity: maxTaps)
        defer { scratch.deallocate() }

        let last = inputSize - 1
        if filter == .nearest {
            // The pixel under each output centre. Centres advance by repeated addition, as in Pillow:
            // a centre landing exactly on a pixel boundary is a tie, and this breaks ties as Pillow does.
            var center = boxStart + scale * 0.5
            for i in 0..<count {
                starts[i] = min(max(Int(center), 0), last)
                tapCounts[i] = 1
                weights[i * maxTaps] = 1
                center += scale
            }
            return
        }
        for i in 0..<count {
            let center = boxStart + (Double(i) + 0.5) * scale
            let clampedLow = min(max(Int((center - support).rounded(.down)), 0), last)
            let clampedHigh = min(max(Int((center + support).rounded(.up)), 0), last)
            let span = clampedHigh - clampedLow + 1
            for x in clampedLow...clampedHigh {
                // Pixel x covers [x, x+1): its centre is x + 0.5.
                scratch[x - clampedLow] = filter.weight(at: (Double(x) + 0.5 - center) / filterScale)
            }
            // Taps whose weight is zero in exact arithmetic are dropped from the ends. Lanczos's zeros at whole
            // offsets come out of the sine as about 1e-16, so an axis at scale 1 (a reduced JPEG decode whose
            // width is already the output's) would otherwise read six taps per pixel to copy one.
            var begin = 0, end = span
            while begin < end && abs(scratch[begin]) < Self.negligibleWeight { begin += 1 }
            while end > begin && abs(scratch[end - 1]) < Self.negligibleWeight { end -= 1 }
            var sum = 0.0
            for k in begin..<end { sum += scratch[k] }
            let row = weights + i * maxTaps
            if end > begin && sum > 1e-9 {
                starts[i] = clampedLow + begin
                tapCounts[i] = end - begin
                for k in begin..<end { row[k - begin] = Float(scratch[k] / sum) }
            } else {
                // Cannot happen for the filters above; fall back to the nearest pixel rather than divide by 0.
                starts[i] = min(max(Int(center), 0), last)
                tapCounts[i] = 1
                row[0] = 1
            }
        }
    }

    /// A kernel value this close to zero (the kernels peak at 1) is a rounding error of a true zero: it
    /// could move no output by a millionth of a level.
    static let negligibleWeight = 1e-9

    deinit {
        starts.deallocate()
        tapCounts.deallocate()
        weights.deallocate()
    }

    /// The memory the table holds: starts, tap counts and weights.
    var byteCount: Int { count * (2 * MemoryLayout<Int>.stride + stride * MemoryLayout<Float>.stride) }

    /// The most taps any output reads.
    var widestTapCount: Int {
        var widest = 0
        for i in 0..<count { widest = max(widest, tapCounts[i]) }
        return widest
    }

    /// For a table of rows resampled through a ring of filtered rows: for each output, the lowest input it or
    /// any later output reads (inputs above it may leave the ring); the most inputs held at once; and one past
    /// the last input any output reads. Computed rather than assumed monotonic, so the ring stays correct even
    /// if a kernel's zero weights make one window start earlier than the last.
    var slidingWindow: (lowestStillNeeded: [Int], mostAtOnce: Int, end: Int) {
        var lowest = [Int](repeating: 0, count: count)
        var running = Int.max
        for i in Swift.stride(from: count - 1, through: 0, by: -1) {
            running = min(running, starts[i])
            lowest[i] = running
        }
        var mostAtOnce = 1, end = 0
        for i in 0..<count {
            end = max(end, starts[i] + tapCounts[i])
            mostAtOnce = max(mostAtOnce, end - lowest[i])
        }
        return (lowest, mostAtOnce, end)
    }

    /// Whether each output reads one source pixel, the one after the previous output's, at weight 1: the
    /// axis is copied (a reduced decode already at the output's size).
    var isCopy: Bool {
        for i in 0..<count {
            guard tapCounts[i] == 1, weights[i * stride] == 1, starts[i] == starts[0] + i else { return false }
        }
        return true
    }

    /// The source range all outputs together read.
    var sourceRange: Range<Int> {
        var lower = Int.max, upper = Int.min
        for i in 0..<count {
            lower = min(lower, starts[i])
            upper = max(upper, starts[i] + tapCounts[i])
        }
        return lower..<upper
    }
}
