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

    /// Pixels of 3 or 4 channels after the first, each one's channels in the lanes of a `SIMD4<Int16>`. Four
    /// bytes are read and written at a time; for RGB the fourth is the next pixel's, written back as it was.
    /// The last RGB pixel and any bytes after the last whole pixel take the byte at a time rule.
    private static func unfilterPaethPixels(
        row: UnsafeMutablePointer<UInt8>, up: UnsafePointer<UInt8>, count: Int, channels: Int
    ) {
        let rowBytes = UnsafeMutableRawPointer(row), upBytes = UnsafeRawPointer(up)
        @inline(__always) func lanes(_ bytes: UnsafeRawPointer, _ offset: Int) -> SIMD4<Int16> {
            SIMD4<Int16>(truncatingIfNeeded: bytes.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt8>.self))
        }
        // RGB's fourth lane is the next pixel's byte: it is stored back unchanged.
        let kept = SIMD4<Int16>(0, 0, 0, channels == 4 ? 0 : 0xFF)
        var left = SIMD4<Int16>.zero, upLeft = SIMD4<Int16>.zero
        for lane in 0..<channels {
            left[lane] = Int16(row[lane])
            upLeft[lane] = Int16(up[lane])
        }
        var i = channels
        while i + 4 <= count {
            let above = lanes(upBytes, i), stored = lanes(rowBytes, i)
            left = (stored &+ prediction(left: left, up: above, upLeft: upLeft)) & 0xFF
            let written = (left & ~kept) | (stored & kept)
            rowBytes.storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: written), toByteOffset: i, as: SIMD4<UInt8>.self)
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
