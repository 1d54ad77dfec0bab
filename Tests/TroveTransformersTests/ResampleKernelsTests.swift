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
