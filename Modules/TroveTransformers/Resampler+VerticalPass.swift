/// The vertical pass: weighted sums of filtered rows, back to straight alpha, rounded to bytes. Four pixels
/// (one `SIMD16<Float>`, four SSE registers) are summed over every row in registers and stored as sixteen
/// bytes, instead of adding each pair of rows into a row of sums in memory and rounding that in a second
/// sweep. Each pixel's arithmetic, and its order, is the same as one pixel at a time.
extension Resampler {
    /// The vertical pass for output row `i`, whose source rows are all in `window`: sums them, returns to
    /// straight alpha and writes `outputWidth` RGBA8 pixels to `destination`.
    func emitRow(_ i: Int, from window: RowWindow, into destination: UnsafeMutablePointer<UInt8>) {
        let outW = plan.outputWidth
        let start = rows.starts[i], count = rows.tapCounts[i]
        let weights = rows.weights + i * rows.stride
        // Every row an output reads is in the window at once, so this holds for a window from `makeWindow`.
        precondition(count >= 1 && count <= window.capacity, "the window holds every row an output reads")
        assert(count % 2 == 0 || weights[count] == 0, "an odd row count pairs with a zero padding weight")
        // The rows and their weights, looked up once rather than once per block of pixels. Rows go in pairs,
        // so the next pair's sum does not wait on this one's; an odd last row pairs with itself at the table's
        // padding weight, 0.
        let lines = window.tapLines, splats = window.tapWeights
        for k in 0..<count {
            lines[k] = UnsafePointer(window.row(start + k))
            splats[k] = SIMD4(repeating: weights[k])
        }
        let paired = (count + 1) & ~1
        if paired > count {
            lines[count] = lines[count - 1]
            splats[count] = SIMD4(repeating: weights[count])
        }
        // Over opaque rows the alpha sum is 255 up to float rounding, and the colour needs no dividing by it.
        var allOpaque = true
        for k in 0..<count where !window.opaque[window.slot(start + k)] {
            allOpaque = false
            break
        }
        if allOpaque && usesKernels {
            // Nothing to un-premultiply: a weighted sum of floats, as the plane resample's.
            ResampleKernels.weightedRows(lines, weights: weights, paired: paired, floats: outW * 4, into: destination)
            return
        }
        let bytes = UnsafeMutableRawPointer(destination)
        var j = 0
        while j &+ 4 <= outW {
            var sum = Self.pairSum(lines, splats, pair: 0, at: j)
            var k = 2
            while k < paired {
                sum += Self.pairSum(lines, splats, pair: k, at: j)
                k &+= 2
            }
            if !allOpaque { sum = Self.straightAlpha(sum) }
            bytes.storeBytes(of: Self.roundedBytes(sum), toByteOffset: j &* 4, as: SIMD16<UInt8>.self)
            j &+= 4
        }
        // The last width % 4 pixels, one at a time with the same arithmetic.
        while j < outW {
            var sum = lines[0][j] * splats[0] + lines[1][j] * splats[1]
            var k = 2
            while k < paired {
                sum += lines[k][j] * splats[k] + lines[k &+ 1][j] * splats[k &+ 1]
                k &+= 2
            }
            if !allOpaque { sum = Self.straightAlpha(sum) }
            for channel in 0..<4 {
                destination[j &* 4 &+ channel] = Self.roundedByte(sum[channel])
            }
            j &+= 1
        }
    }

    /// Rows `pair` and `pair + 1`, weighted, summed for the four pixels from `j`.
    @inline(__always)
    private static func pairSum(
        _ lines: UnsafePointer<UnsafePointer<SIMD4<Float>>>, _ splats: UnsafePointer<SIMD4<Float>>, pair k: Int,
        at j: Int
    ) -> SIMD16<Float> {
        quad(lines[k] + j) * quad(splat: splats[k]) + quad(lines[k &+ 1] + j) * quad(splat: splats[k &+ 1])
    }

    /// Four pixels from `pixels` as one vector.
    @inline(__always)
    private static func quad(_ pixels: UnsafePointer<SIMD4<Float>>) -> SIMD16<Float> {
        SIMD16(
            lowHalf: SIMD8(lowHalf: pixels[0], highHalf: pixels[1]),
            highHalf: SIMD8(lowHalf: pixels[2], highHalf: pixels[3]))
    }

    /// One pixel's weight for all four pixels' channels.
    @inline(__always)
    private static func quad(splat: SIMD4<Float>) -> SIMD16<Float> {
        let half = SIMD8(lowHalf: splat, highHalf: splat)
        return SIMD16(lowHalf: half, highHalf: half)
    }

    /// Premultiplied Float pixel to straight alpha, still Float.
    @inline(__always)
    static func straightAlpha(_ pixel: SIMD4<Float>) -> SIMD4<Float> {
        let alpha = pixel[3]
        // Alpha that rounds to 0 is invisible; its colour is meaningless (and dividing by it explodes).
        guard alpha >= 0.5 else { return .zero }
        var straight = pixel * (255 / alpha)
        straight[3] = alpha
        return straight
    }

    /// Four pixels at once, each exactly as `straightAlpha(_: SIMD4<Float>)` makes it.
    @inline(__always)
    static func straightAlpha(_ pixels: SIMD16<Float>) -> SIMD16<Float> {
        let a0 = pixels[3], a1 = pixels[7], a2 = pixels[11], a3 = pixels[15]
        let alpha = SIMD16<Float>(a0, a0, a0, a0, a1, a1, a1, a1, a2, a2, a2, a2, a3, a3, a3, a3)
        var straight = pixels * (255 / alpha)
        straight[3] = a0
        straight[7] = a1
        straight[11] = a2
        straight[15] = a3
        straight.replace(with: 0, where: .!(alpha .>= 0.5))
        return straight
    }

    /// floor(clamped + 0.5) by float arithmetic alone: adding 2^23 rounds to the nearest integer (ties to
    /// even), a compare turns that into the floor, and the integer is then the low byte of the sum's bits.
    /// No conversion that can trap, so it needs no checks.
    @inline(__always)
    static func roundedByte(_ value: Float) -> UInt8 {
        let magic: Float = 8_388_608
        let shifted = min(max(value, 0), 255) + 0.5
        let nearest = (shifted + magic) - magic
        let floor = nearest > shifted ? nearest - 1 : nearest
        return UInt8(truncatingIfNeeded: (floor + magic).bitPattern)
    }

    /// `roundedByte` of sixteen values at once: the same steps on vectors, packed to bytes.
    @inline(__always)
    static func roundedBytes(_ values: SIMD16<Float>) -> SIMD16<UInt8> {
        let magic = SIMD16<Float>(repeating: 8_388_608)
        // Compare-and-replace rather than pointwiseMin/Max, which keep NaN and signed-zero rules per lane
        // and do not map to one instruction; a -0 left here adds to the same 0.5.
        var clamped = values.replacing(with: 0, where: values .< 0)
        clamped.replace(with: 255, where: clamped .> 255)
        let shifted = clamped + 0.5
        let nearest = (shifted + magic) - magic
        let floor = nearest.replacing(with: nearest - 1, where: nearest .> shifted)
        return SIMD16<UInt8>(truncatingIfNeeded: unsafeBitCast(floor + magic, to: SIMD16<UInt32>.self))
    }
}
