#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(ucrt)
    import ucrt
#endif

/// The forward DCT of ThumbHash's encoder over one image size, with the cosines computed once per axis
/// instead of once per term and pixel.
///
/// Each table entry is the very value the reference computes in its loops (`cos(PI / w * cx * (x + 0.5))`,
/// and likewise per row), and each term is still summed in the reference's order (rows top to bottom, pixels
/// left to right, `(value * fx) * fy`, one rounding per operation), so the sums are bit for bit the
/// reference's. Only independent sums run side by side, eight terms (four across, two rows down) in one pass
/// over the pixels, instead of one long dependent chain per term. Plain scalars rather than SIMD types keep
/// unoptimised (debug) builds fast too; the optimiser vectorises them.
struct ThumbHashCosineTables {
    /// One channel's DCT: its DC term, its AC terms normalised to 0...1, and the scale that undoes that.
    struct Channel {
        var dc: Double
        var ac: [Double]
        var scale: Double
    }

    /// Terms across that the tables hold: the 7 of the widest channel, rounded up to whole blocks of 4.
    private static let columns = 8

    let width: Int
    let height: Int
    /// `cos(PI / width * cx * (x + 0.5))` at `[x * columns + cx]`.
    private let fx: [Double]
    /// `cos(PI / height * cy * (y + 0.5))` at `[cy * height + y]`, for cy 0..<rows.
    private let fy: [Double]

    /// Tables for images of `width` x `height` and channels of at most 7 x `rows` terms.
    init(width: Int, height: Int, rows: Int) {
        self.width = width
        self.height = height
        let columns = Self.columns
        var fx = [Double](repeating: 0, count: width * columns)
        for cx in 0..<columns {
            for x in 0..<width {
                fx[x * columns + cx] = cos(Double.pi / Double(width) * Double(cx) * (Double(x) + 0.5))
            }
        }
        var fy = [Double](repeating: 0, count: height * rows)
        for cy in 0..<rows {
            for y in 0..<height {
                fy[cy * height + y] = cos(Double.pi / Double(height) * Double(cy) * (Double(y) + 0.5))
            }
        }
        self.fx = fx
        self.fy = fy
    }

    /// The number of terms in row `cy` of an nx by ny channel: those with `cx * ny < nx * (ny - cy)` (a
    /// triangle: high frequencies in both directions at once matter least).
    static func terms(inRow cy: Int, nx: Int, ny: Int) -> Int {
        var count = 0
        while count * ny < nx * (ny - cy) { count += 1 }
        return count
    }

    /// The channel's terms, DC first and then row by row; nx must be at most 7 and ny at most the tables' rows.
    func encode(_ channel: [Double], nx: Int, ny: Int) -> Channel {
        let sums = termSums(channel, nx: nx, ny: ny)
        var dc = 0.0
        var ac: [Double] = []
        ac.reserveCapacity(nx * ny)
        var scale = 0.0
        let area = Double(width * height)
        for cy in 0..<ny {
            for cx in 0..<Self.terms(inRow: cy, nx: nx, ny: ny) {
                let f = sums[cy * Self.columns + cx] / area
                if cx > 0 || cy > 0 {
                    ac.append(f)
                    scale = max(scale, abs(f))
                } else {
                    dc = f
                }
            }
        }
        if scale != 0 {
            for i in ac.indices { ac[i] = 0.5 + 0.5 / scale * ac[i] }
        }
        return Channel(dc: dc, ac: ac, scale: scale)
    }

    /// Every term's sum over the pixels, term (cx, cy) at `[cy * columns + cx]` (slots past a row's last
    /// term hold sums nobody reads).
    private func termSums(_ channel: [Double], nx: Int, ny: Int) -> [Double] {
        let width = width, height = height, columns = Self.columns
        var sums = [Double](repeating: 0, count: (ny + 1) * columns)
        channel.withUnsafeBufferPointer { values in
            fx.withUnsafeBufferPointer { fx in
                fy.withUnsafeBufferPointer { fy in
                    // Rows cy and cy + 1 together (a missing second row multiplies by zero and is dropped),
                    // four terms across at a time, as many blocks as the first, longer row needs.
                    for cy in stride(from: 0, to: ny, by: 2) {
                        let secondRow = cy + 1 < ny
                        for cx in stride(from: 0, to: Self.terms(inRow: cy, nx: nx, ny: ny), by: 4) {
                            var a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0
                            var b0 = 0.0, b1 = 0.0, b2 = 0.0, b3 = 0.0
                            for y in 0..<height {
                                let fyA = fy[cy * height + y]
                                let fyB = secondRow ? fy[(cy + 1) * height + y] : 0
                                let row = y * width
                                for x in 0..<width {
                                    let value = values[row + x]
                                    let f = x * columns + cx
                                    let t0 = value * fx[f], t1 = value * fx[f + 1]
                                    let t2 = value * fx[f + 2], t3 = value * fx[f + 3]
                                    a0 += t0 * fyA
                                    a1 += t1 * fyA
                                    a2 += t2 * fyA
                                    a3 += t3 * fyA
                                    b0 += t0 * fyB
                                    b1 += t1 * fyB
                                    b2 += t2 * fyB
                                    b3 += t3 * fyB
                                }
                            }
                            let a = cy * columns + cx, b = a + columns
                            sums[a] = a0
                            sums[a + 1] = a1
                            sums[a + 2] = a2
                            sums[a + 3] = a3
                            sums[b] = b0
                            sums[b + 1] = b1
                            sums[b + 2] = b2
                            sums[b + 3] = b3
                        }
                    }
                }
            }
        }
        return sums
    }
}
