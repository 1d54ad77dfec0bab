/// The five PNG scanline filters (None, Sub, Up, Average, Paeth): each byte is stored as the difference
/// from a prediction made from the byte to its left (`distance` bytes back) and the byte above.
enum PNGFilter {
    static let types: ClosedRange<UInt8> = 0...4

    @inline(__always)
    static func paeth(_ left: UInt8, _ up: UInt8, _ upLeft: UInt8) -> UInt8 {
        let a = Int(left), b = Int(up), c = Int(upLeft)
        let pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c)
        if pa <= pb && pa <= pc { return left }
        return pb <= pc ? up : upLeft
    }

    /// Reverses filter `type` on `row` in place. `previous` is the unfiltered row above (nil on the first
    /// row, which the spec treats as zeros). Returns false for an unknown filter type.
    static func unfilter(
        _ type: UInt8, row: UnsafeMutablePointer<UInt8>, previous: UnsafePointer<UInt8>?,
        count: Int, distance: Int
    ) -> Bool {
        let d = min(distance, count)
        switch (type, previous) {
        case (0, _), (2, nil):
            break
        case (1, _), (4, nil):
            // Paeth with a zero row above always predicts the left byte, like Sub.
            for i in d..<count { row[i] &+= row[i - d] }
        case (2, let up?):
            for i in 0..<count { row[i] &+= up[i] }
        case (3, nil):
            for i in d..<count { row[i] &+= row[i - d] >> 1 }
        case (3, let up?):
            for i in 0..<d { row[i] &+= up[i] >> 1 }
            for i in d..<count { row[i] &+= UInt8(truncatingIfNeeded: (Int(row[i - d]) + Int(up[i])) >> 1) }
        case (4, let up?):
            unfilterPaeth(row: row, up: up, count: count, distance: distance)
        default:
            return false
        }
        return true
    }

    /// Writes `row` filtered with `type` into `output` and returns the sum of the output bytes taken as
    /// signed magnitudes: the usual heuristic for choosing a filter (smaller compresses better).
    static func filter(
        _ type: UInt8, row: UnsafePointer<UInt8>, previous: UnsafePointer<UInt8>?,
        count: Int, distance: Int, into output: UnsafeMutablePointer<UInt8>
    ) -> Int {
        let d = min(distance, count)
        @inline(__always) func up(_ i: Int) -> UInt8 { previous?[i] ?? 0 }
        @inline(__always) func left(_ i: Int) -> UInt8 { i >= d ? row[i - d] : 0 }
        @inline(__always) func upLeft(_ i: Int) -> UInt8 { i >= d ? up(i - d) : 0 }
        switch type {
        case 0: for i in 0..<count { output[i] = row[i] }
        case 1: for i in 0..<count { output[i] = row[i] &- left(i) }
        case 2: for i in 0..<count { output[i] = row[i] &- up(i) }
        case 3:
            for i in 0..<count {
                output[i] = row[i] &- UInt8(truncatingIfNeeded: (Int(left(i)) + Int(up(i))) >> 1)
            }
        default: for i in 0..<count { output[i] = row[i] &- paethPrediction(left(i), up(i), upLeft(i)) }
        }
        var sum = 0
        for i in 0..<count { sum += abs(Int(Int8(bitPattern: output[i]))) }
        return sum
    }
}
