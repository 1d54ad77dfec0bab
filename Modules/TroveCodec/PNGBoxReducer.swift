/// Shrinks RGBA8 rows by 2^shift in both directions as they arrive, averaging each 2^shift x 2^shift
/// block into one pixel, so a decoder never holds the full-size image. Blocks at the right and bottom
/// edges average the pixels that exist. With `weighsByAlpha`, colour is averaged in premultiplied alpha
/// (weighted by each pixel's alpha), so invisible pixels add no colour; results round half up.
final class PNGBoxReducer {
    let width: Int
    let height: Int
    let shift: Int
    let outputWidth: Int
    let outputHeight: Int
    let weighsByAlpha: Bool
    /// Per output pixel of the block row being summed: red, green, blue (alpha-weighted when
    /// `weighsByAlpha`) and alpha.
    private let sums: UnsafeMutablePointer<Int>
    /// The last completed output row, `outputWidth` RGBA8 pixels, reused for every row.
    private let outputRow: UnsafeMutablePointer<UInt8>
    private var rowsInBlock = 0
    private var nextOutputRow = 0

    init(width: Int, height: Int, shift: Int, weighsByAlpha: Bool) {
        precondition(width > 0 && height > 0 && shift >= 0, "reduce a non-empty image")
        self.width = width
        self.height = height
        self.shift = shift
        self.weighsByAlpha = weighsByAlpha
        outputWidth = Self.reducedLength(width, shift: shift)
        outputHeight = Self.reducedLength(height, shift: shift)
        sums = .allocate(capacity: outputWidth * 4)
        sums.initialize(repeating: 0, count: outputWidth * 4)
        outputRow = .allocate(capacity: outputWidth * 4)
        outputRow.initialize(repeating: 0, count: outputWidth * 4)
    }

    deinit {
        sums.deallocate()
        outputRow.deallocate()
    }

    /// A side of `length` pixels reduced by 2^shift, a partial block counting as one.
    static func reducedLength(_ length: Int, shift: Int) -> Int {
        (length + (1 << shift) - 1) >> shift
    }

    /// Adds the next source row (`width` RGBA8 pixels, or RGB8 with `bytesPerPixel` 3, read as opaque);
    /// when it completes a block row, returns that output row (`outputWidth` RGBA8 pixels, valid until the
    /// next call), else nil.
    func add(_ row: UnsafePointer<UInt8>, bytesPerPixel: Int = 4) -> UnsafePointer<UInt8>? {
        precondition(bytesPerPixel == 4 || (bytesPerPixel == 3 && !weighsByAlpha), "RGBA8, or opaque RGB8")
        let block = 1 << shift
        var x = 0, slot = sums
        while x < width {
            let end = min(x + block, width)
            var r = 0, g = 0, b = 0, a = 0
            if weighsByAlpha {
                for i in x..<end {
                    let p = row + 4 * i, alpha = Int(p[3])
                    r += Int(p[0]) * alpha
                    g += Int(p[1]) * alpha
                    b += Int(p[2]) * alpha
                    a += alpha
                }
            } else if bytesPerPixel == 3 {
                for i in x..<end {
                    let p = row + 3 * i
                    r += Int(p[0])
                    g += Int(p[1])
                    b += Int(p[2])
                }
                a = 255 * (end - x)
            } else {
                for i in x..<end {
                    let p = row + 4 * i
                    r += Int(p[0])
                    g += Int(p[1])
                    b += Int(p[2])
                    a += Int(p[3])
                }
            }
            slot[0] += r
            slot[1] += g
            slot[2] += b
            slot[3] += a
            slot += 4
            x = end
        }
        rowsInBlock += 1
        guard rowsInBlock == block || (nextOutputRow << shift) + rowsInBlock == height else { return nil }
        emit(into: outputRow)
        nextOutputRow += 1
        rowsInBlock = 0
        return UnsafePointer(outputRow)
    }

    private func emit(into out: UnsafeMutablePointer<UInt8>) {
        let block = 1 << shift
        // A whole block of unweighted pixels averages 4^shift of them: a shift, where four divisions a pixel
        // were most of the reducer's time. The same rounding (half up).
        let shifted = !weighsByAlpha && rowsInBlock == block ? width >> shift : 0
        let bits = 2 * shift, half = (1 << bits) >> 1
        for j in 0..<shifted {
            let slot = sums + 4 * j, p = out + 4 * j
            for channel in 0..<4 { p[channel] = UInt8(truncatingIfNeeded: (slot[channel] + half) >> bits) }
        }
        for j in shifted..<outputWidth {
            let slot = sums + 4 * j
            let count = min(block, width - (j << shift)) * rowsInBlock
            let alphaSum = slot[3]
            // Colour divides by what it was weighted with: alpha's total, or the pixel count.
            let divisor = weighsByAlpha ? alphaSum : count
            let p = out + 4 * j
            if divisor == 0 {
                p[0] = 0; p[1] = 0; p[2] = 0
            } else {
                p[0] = UInt8((slot[0] + divisor / 2) / divisor)
                p[1] = UInt8((slot[1] + divisor / 2) / divisor)
                p[2] = UInt8((slot[2] + divisor / 2) / divisor)
            }
            p[3] = UInt8((alphaSum + count / 2) / count)
        }
        sums.update(repeating: 0, count: outputWidth * 4)
    }
}
