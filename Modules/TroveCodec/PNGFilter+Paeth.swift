extension PNGFilter {
    /// Reverses Paeth on `row` given the unfiltered row above. Photos are mostly Paeth rows, and the byte at a
    /// time rule mispredicts its branches about every other byte; for 3- and 4-byte pixels (8-bit RGB and
    /// RGBA) this predicts a whole pixel's channels at once in SIMD lanes, choosing without branches. Byte for
    /// byte what `paeth` gives.
    static func unfilterPaeth(
        row: UnsafeMutablePointer<UInt8>, up: UnsafePointer<UInt8>, count: Int, distance: Int
    ) {
        let d = min(distance, count)
        // The first pixel has no left or up-left byte (both zero), so Paeth predicts the byte above.
        for i in 0..<d { row[i] &+= up[i] }
        switch d {
        case 4: unfilterPaethPixels(row: row, up: up, count: count, channels: 4)
        case 3: unfilterPaethPixels(row: row, up: up, count: count, channels: 3)
        default: for i in d..<count { row[i] &+= paeth(row[i - d], up[i], up[i - d]) }
        }
    }

    /// Pixels of 3 or 4 channels after the first, each one's channels in the lanes of a `SIMD4<Int16>` (a
    /// fourth lane of zeros for RGB). Any bytes after the last whole pixel take the byte at a time rule.
    private static func unfilterPaethPixels(
        row: UnsafeMutablePointer<UInt8>, up: UnsafePointer<UInt8>, count: Int, channels: Int
    ) {
        @inline(__always) func pixel(_ bytes: UnsafePointer<UInt8>) -> SIMD4<Int16> {
            SIMD4(Int16(bytes[0]), Int16(bytes[1]), Int16(bytes[2]), channels == 4 ? Int16(bytes[3]) : 0)
        }
        var left = pixel(row), upLeft = pixel(up)
        var i = channels
        while i + channels <= count {
            let above = pixel(up + i)
            left = (pixel(row + i) &+ prediction(left: left, up: above, upLeft: upLeft)) & 0xFF
            row[i] = UInt8(truncatingIfNeeded: left[0])
            row[i + 1] = UInt8(truncatingIfNeeded: left[1])
            row[i + 2] = UInt8(truncatingIfNeeded: left[2])
            if channels == 4 { row[i + 3] = UInt8(truncatingIfNeeded: left[3]) }
            upLeft = above
            i += channels
        }
        while i < count {
            row[i] &+= paeth(row[i - channels], up[i], up[i - channels])
            i += 1
        }
    }

    /// `paeth` in each lane: the left byte when it is nearest to left + up - upLeft, else up when that is
    /// nearer than upLeft, else upLeft (ties in that order).
    @inline(__always)
    static func prediction(left: SIMD4<Int16>, up: SIMD4<Int16>, upLeft: SIMD4<Int16>) -> SIMD4<Int16> {
        let upSide = up &- upLeft, leftSide = left &- upLeft, both = upSide &+ leftSide
        // Absolute values as the larger of x and -x: one SSE2 instruction for 16-bit lanes.
        let toLeft = pointwiseMax(upSide, 0 &- upSide)
        let toUp = pointwiseMax(leftSide, 0 &- leftSide)
        let toUpLeft = pointwiseMax(both, 0 &- both)
        var predicted = upLeft
        predicted.replace(with: up, where: toUp .<= toUpLeft)
        predicted.replace(with: left, where: (toLeft .<= toUp) .& (toLeft .<= toUpLeft))
        return predicted
    }
}
