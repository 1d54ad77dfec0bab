/// Halves a plane's resolution on the way into a resample: each output sample the mean of the 2 (or 2x2)
/// samples it covers, the last column and row repeated to an even size, rounded with a bias of 1 and 2 (of
/// 0 and 1 when halving one way) in turn across a row as libjpeg-turbo's downsampler rounds (so the rounding
/// does not drift one way). Chroma that libjpeg's scaled IDCT delivers at the luma's resolution is brought
/// back to 4:2:0 this way before it is resampled, which costs a quarter of resampling it at full size; and a
/// resampled full-sized chroma plane is averaged to 4:2:0 the same way (`PlanarResizer.averaged`).
final class PlaneHalver {
    /// Where each halved row goes (valid during the call).
    private let emit: (UnsafePointer<UInt8>) throws -> Void
    private let width: Int
    private let height: Int
    private let halvesAcross: Bool
    private let halvesDown: Bool
    /// The first row of a pair, held until the second arrives.
    private let held: UnsafeMutablePointer<UInt8>
    private let row: UnsafeMutablePointer<UInt8>
    private let outputWidth: Int
    private var pending = false
    private var rowsIn = 0
    /// Whether 2x2 halving runs `ResampleKernels`' AVX2 kernel (the same bytes as the Swift loop).
    private let usesKernels: Bool

    /// Feeds `target` a `width x height` plane halved across when `across`, down when `down`.
    convenience init(into target: PlaneResampler, width: Int, height: Int, across: Bool, down: Bool) {
        self.init(width: width, height: height, across: across, down: down) { try target.consume($0) }
    }

    /// Hands `emit` each row of a `width x height` plane halved across when `across`, down when `down`;
    /// `kernels` as in `PlaneResampler`.
    init(
        width: Int, height: Int, across: Bool, down: Bool, kernels: Bool = ResampleKernels.available,
        emit: @escaping (UnsafePointer<UInt8>) throws -> Void
    ) {
        self.emit = emit
        usesKernels = kernels && ResampleKernels.available
        self.width = width
        self.height = height
        halvesAcross = across
        halvesDown = down
        outputWidth = across ? (width + 1) / 2 : width
        held = .allocate(capacity: max(width, 1))
        held.initialize(repeating: 0, count: max(width, 1))
        row = .allocate(capacity: max(outputWidth, 1))
        row.initialize(repeating: 0, count: max(outputWidth, 1))
    }

    deinit {
        held.deallocate()
        row.deallocate()
    }

    /// The next row of the full plane (`width` samples).
    func consume(_ samples: UnsafePointer<UInt8>) throws {
        rowsIn += 1
        // The last row of an odd height pairs with itself.
        if halvesDown && !pending && rowsIn < height {
            held.update(from: samples, count: width)
            pending = true
            return
        }
        let top = pending ? UnsafePointer(held) : samples
        pending = false
        let pairs = halvesAcross ? width / 2 : 0
        // Loops without a branch or a clamp inside, so they vectorise; the odd last column after them.
        switch (halvesAcross, halvesDown) {
        case (true, true):
            if usesKernels {
                ResampleKernels.halve(top: top, bottom: samples, pairs: pairs, into: row)
            } else {
                for x in 0..<pairs {
                    let sum =
                        UInt16(top[2 &* x]) &+ UInt16(top[2 &* x &+ 1]) &+ UInt16(samples[2 &* x])
                        &+ UInt16(samples[2 &* x &+ 1])
                    row[x] = UInt8(truncatingIfNeeded: (sum &+ 1 &+ UInt16(x & 1)) &>> 2)
                }
            }
            if pairs < outputWidth {
                let sum = 2 &* (UInt16(top[width &- 1]) &+ UInt16(samples[width &- 1]))
                row[pairs] = UInt8(truncatingIfNeeded: (sum &+ 1 &+ UInt16(pairs & 1)) &>> 2)
            }
        case (true, false):
            for x in 0..<pairs {
                let sum = UInt16(samples[2 &* x]) &+ UInt16(samples[2 &* x &+ 1])
                row[x] = UInt8(truncatingIfNeeded: (sum &+ UInt16(x & 1)) &>> 1)
            }
            if pairs < outputWidth {
                let sum = 2 &* UInt16(samples[width &- 1])
                row[pairs] = UInt8(truncatingIfNeeded: (sum &+ UInt16(pairs & 1)) &>> 1)
            }
        case (false, true):
            for x in 0..<width {
                let sum = UInt16(top[x]) &+ UInt16(samples[x])
                row[x] = UInt8(truncatingIfNeeded: (sum &+ UInt16(x & 1)) &>> 1)
            }
        case (false, false):
            row.update(from: samples, count: width)
        }
        try emit(row)
    }
}
