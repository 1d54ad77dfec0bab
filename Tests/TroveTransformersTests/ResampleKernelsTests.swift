import Testing
import TroveCore

@testable import TroveTransformers

/// The AVX2 kernels (`ResampleKernels`) give the portable Swift loops' bytes exactly, so what a resize makes
/// never depends on the machine. Each case runs the same pass both ways on noise that swings between 0 and
/// 255 (so lanczos overshoots past both ends and the clamps matter) and widths that end inside and outside
/// the kernels' blocks of sixteen. Where the CPU has no AVX2 both ways are the Swift loop: nothing to compare.
@Suite(.enabled(if: ResampleKernels.available, "the CPU has no AVX2: both ways would be the Swift loops"))
struct ResampleKernelsTests {
    /// Bytes of noise, most of them at the ends of the range.
    static func noise(_ count: Int, seed: UInt32) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            let value = UInt8(truncatingIfNeeded: state >> 24)
            return value < 96 ? 0 : value > 160 ? 255 : value
        }
    }

    /// A plane of `block`-sized squares of that noise: large enough to survive a shrink as areas of 0 and 255
    /// whose edges a sharpening filter overshoots.
    static func blocks(width: Int, height: Int, block: Int, seed: UInt32) -> [UInt8] {
        let columns = (width + block - 1) / block, rows = (height + block - 1) / block
        let values = noise(columns * rows, seed: seed)
        return (0..<(width * height)).map { values[(($0 / width) / block) * columns + ($0 % width) / block] }
    }

    /// How many bytes two outputs differ in (an expectation that prints a count, not two images).
    static func differing(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).filter { $0 != $1 }.count
    }

    static func planeResample(
        _ plane: [UInt8], width: Int, height: Int, to outputWidth: Int, _ outputHeight: Int,
        filter: ResizeTransformer.Filter, kernels: Bool
    ) throws -> [UInt8] {
        let resampler = try PlaneResampler(
            inputWidth: width, inputHeight: height, boxX: 0, boxY: 0, boxWidth: Double(width),
            boxHeight: Double(height), outputWidth: outputWidth, outputHeight: outputHeight, filter: filter,
            kernels: kernels)
        for y in 0..<height {
            try plane.withUnsafeBufferPointer { try resampler.consume($0.baseAddress! + y * width) }
        }
        #expect(resampler.isComplete)
        return resampler.output
    }

    @Test(arguments: [
        (306, 204, 300, 200, ResizeTransformer.Filter.lanczos3),  // a 1 MP JPEG's reduced luma to 300 px
        (512, 342, 512, 341, .lanczos3),  // a kept width: the vertical pass alone
        (153, 102, 150, 100, .lanczos3),
        (1000, 40, 37, 9, .bicubic),  // a steep shrink: many taps, an odd count among them
        (40, 30, 97, 61, .lanczos3),  // an enlargement
        (33, 17, 33, 5, .bilinear),
        (16, 16, 16, 15, .lanczos3),  // one block exactly
        (13, 12, 11, 10, .lanczos3)  // narrower than a block: the tail alone
    ])
    func planeResampleMatchesTheSwiftPass(
        width: Int, height: Int, outputWidth: Int, outputHeight: Int, filter: ResizeTransformer.Filter
    ) throws {
        let shrink = max(width / outputWidth, height / outputHeight, 1)
        let plane = Self.blocks(
            width: width, height: height, block: 3 * shrink, seed: UInt32(width * 31 + height * 7 + outputWidth))
        let fast = try Self.planeResample(
            plane, width: width, height: height, to: outputWidth, outputHeight, filter: filter, kernels: true)
        let portable = try Self.planeResample(
            plane, width: width, height: height, to: outputWidth, outputHeight, filter: filter, kernels: false)
        #expect(fast.count == portable.count)
        #expect(Self.differing(fast, portable) == 0)
        #expect(fast.contains(0) && fast.contains(255), "the blocks give sums at and past both clamps")
    }

    /// The RGBA resize's vertical pass takes the kernel over opaque rows (nothing to un-premultiply) and keeps
    /// its own loop for the others: both images come out the same either way.
    @Test(arguments: [(300, 200, 123, 77), (64, 48, 64, 47), (5, 40, 3, 13)])
    func rgbaResampleMatchesTheSwiftPass(width: Int, height: Int, outputWidth: Int, outputHeight: Int) throws {
        var opaque = Self.noise(width * height * 4, seed: 9)
        for pixel in 0..<(width * height) { opaque[pixel * 4 + 3] = 255 }
        var translucent = opaque
        for pixel in stride(from: 0, to: width * height, by: 3) { translucent[pixel * 4 + 3] = 90 }
        let plan = ResizePlan.whole(width: width, height: height, outputWidth: outputWidth, outputHeight: outputHeight)
        for pixels in [opaque, translucent] {
            let fast = try Resampler(
                sourceWidth: width, sourceHeight: height, plan: plan, filter: .lanczos3, kernels: true)
            let portable = try Resampler(
                sourceWidth: width, sourceHeight: height, plan: plan, filter: .lanczos3, kernels: false)
            #expect(fast.usesKernels && !portable.usesKernels)
            let made = fast.resample(pixels), expected = portable.resample(pixels)
            #expect(made.count == expected.count)
            #expect(Self.differing(made, expected) == 0)
        }
    }

    /// The vertical kernel's bytes for `rows` (all one length, an even number of them) and their weights.
    static func kernelSums(_ rows: [[Float]], weights: [Float]) -> [UInt8] {
        let count = rows[0].count
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: rows.count * count)
        defer { storage.deallocate() }
        for (index, row) in rows.enumerated() { (storage + index * count).initialize(from: row, count: count) }
        let lines = (0..<rows.count).map { UnsafePointer(storage + $0 * count) }
        var made = [UInt8](repeating: 7, count: count)
        lines.withUnsafeBufferPointer { lines in
            made.withUnsafeMutableBufferPointer { out in
                ResampleKernels.weightedRows(
                    lines.baseAddress!, weights: weights, paired: rows.count, floats: count, into: out.baseAddress!)
            }
        }
        return made
    }

    /// The vertical kernel against the Swift rounding on sums that land exactly on a half (weights of a few
    /// binary places: 0.5, 0.25, -0.125, ...), at the edges of the range and just past them, every count of
    /// floats up to three blocks: a kernel that rounded halves to even, or fused a multiply into its add, or
    /// rounded its last few lanes otherwise, differs here.
    @Test func weightedRowsRoundAsTheSwiftPassOnExactHalves() {
        let weightSets: [[Float]] = [[0.5, 0.5], [0.25, 0.75], [0.625, 0.5, -0.125, 0], [1.5, -0.25, -0.375, 0.125]]
        var state: UInt32 = 3
        var checked = 0, ties = 0
        for weights in weightSets {
            for count in 1...48 {
                let rows: [[Float]] = weights.indices.map { _ in
                    (0..<count).map { _ in
                        state = state &* 1_664_525 &+ 1_013_904_223
                        return Float(Int(state >> 24) - 2)  // -2 ... 253, and the odd ones make halves
                    }
                }
                let made = Self.kernelSums(rows, weights: weights)
                for x in 0..<count {
                    var sum = rows[0][x] * weights[0] + rows[1][x] * weights[1]
                    for k in stride(from: 2, to: weights.count, by: 2) {
                        sum += rows[k][x] * weights[k] + rows[k + 1][x] * weights[k + 1]
                    }
                    if sum.rounded(.down) + 0.5 == sum { ties += 1 }
                    #expect(made[x] == Resampler.roundedByte(sum), "sum \(sum) at \(x) of \(count)")
                    checked += 1
                }
            }
        }
        #expect(checked == 4 * 48 * 49 / 2)
        #expect(ties > 1000, "exact halves are what this test is for")
    }

    /// Sums whose exact value is a half (0.1 × (n + 5) + 0.9 × n = n + 0.5) but whose float arithmetic lands
    /// just above or below it, so the byte follows the last bits: a kernel that fused a multiply into its add,
    /// or grouped the additions otherwise, differs here.
    @Test func weightedRowsKeepTheSwiftPassLastBits() {
        let weights: [Float] = [0.1, 0.9, 0.3, -0.3]
        let count = 261
        let rows: [[Float]] = [
            (0..<count).map { Float($0 - 5) + 5 }, (0..<count).map { Float($0 - 5) },
            (0..<count).map { Float($0 % 7) * 1.1 }, (0..<count).map { Float($0 % 7) * 1.1 }
        ]
        let made = Self.kernelSums(rows, weights: weights)
        var roundedUp = 0
        for x in 0..<count {
            let sum =
                rows[0][x] * weights[0] + rows[1][x] * weights[1] + (rows[2][x] * weights[2] + rows[3][x] * weights[3])
            #expect(made[x] == Resampler.roundedByte(sum), "sum \(sum) at \(x)")
            if sum >= Float(x - 5) + 0.5 { roundedUp += 1 }
        }
        #expect(roundedUp > 10 && roundedUp < count - 10, "the sums fall on both sides of their halves")
    }

    /// Resizes of uniform noise in random geometries, planes and RGBA, both ways: sums anywhere in the range,
    /// so a last-bit difference in the arithmetic (another grouping of the additions, a fused multiply-add)
    /// shows as a byte.
    @Test func randomResizesMatchTheSwiftPasses() throws {
        var state: UInt32 = 11
        func next(_ range: ClosedRange<Int>) -> Int {
            state = state &* 1_664_525 &+ 1_013_904_223
            return range.lowerBound + Int(state >> 8) % (range.count)
        }
        let filters: [ResizeTransformer.Filter] = [.lanczos3, .bicubic, .bilinear]
        var bytes = 0
        for round in 0..<60 {
            let width = next(1...220), height = next(1...90)
            let outputWidth = next(1...width), outputHeight = next(1...height)
            let filter = filters[round % 3]
            let plane = (0..<(width * height)).map { _ in UInt8(truncatingIfNeeded: next(0...255)) }
            let fast = try Self.planeResample(
                plane, width: width, height: height, to: outputWidth, outputHeight, filter: filter, kernels: true)
            let portable = try Self.planeResample(
                plane, width: width, height: height, to: outputWidth, outputHeight, filter: filter, kernels: false)
            #expect(Self.differing(fast, portable) == 0, "\(width)x\(height) to \(outputWidth)x\(outputHeight)")
            var pixels = (0..<(width * height * 4)).map { _ in UInt8(truncatingIfNeeded: next(0...255)) }
            for pixel in 0..<(width * height) { pixels[pixel * 4 + 3] = 255 }
            let plan = ResizePlan.whole(
                width: width, height: height, outputWidth: outputWidth, outputHeight: outputHeight)
            let rgba = try Resampler(sourceWidth: width, sourceHeight: height, plan: plan, filter: filter)
            let rgbaPortable = try Resampler(
                sourceWidth: width, sourceHeight: height, plan: plan, filter: filter, kernels: false)
            #expect(Self.differing(rgba.resample(pixels), rgbaPortable.resample(pixels)) == 0)
            bytes += fast.count
        }
        #expect(bytes > 10_000)
    }

    /// The halving kernel against libjpeg-turbo's h2v2 rule written out plainly, across widths that end in and
    /// past its blocks of sixteen pairs, odd ones (the last column repeated) among them.
    @Test(arguments: [1, 2, 31, 32, 33, 34, 63, 64, 65, 97, 130, 131])
    func halvingMatchesLibjpegRule(width: Int) throws {
        let height = 5
        let plane = Self.noise(width * height, seed: UInt32(width))
        for kernels in [true, false] {
            var rows: [UInt8] = []
            let halver = PlaneHalver(width: width, height: height, across: true, down: true, kernels: kernels) {
                rows.append(contentsOf: UnsafeBufferPointer(start: $0, count: (width + 1) / 2))
            }
            for y in 0..<height {
                try plane.withUnsafeBufferPointer { try halver.consume($0.baseAddress! + y * width) }
            }
            #expect(rows == PlanarResizerTests.h2v2(plane, width: width, height: height), "kernels: \(kernels)")
        }
    }
}
