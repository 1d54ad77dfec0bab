import Testing
import TroveCore

@testable import TroveTransformers

/// The vectorised resampler makes exactly the bytes of a plain one-pixel-at-a-time resample with the same
/// weight tables and the same order of additions: its speed-ups (broadcast weights, pairs of columns sharing
/// loads, four pixels summed in registers, rounding sixteen values at once) must never move a pixel.
@Suite struct ResamplerReferenceTests {
    /// Deterministic pseudo-random bytes.
    struct Generator {
        var state: UInt64
        mutating func below(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
    }

    /// Noise over gradients; `alpha` 0 opaque, 1 random alpha, 2 opaque but for a few nearly clear rows.
    static func image(width: Int, height: Int, alpha: Int, seed: UInt64) -> Image {
        var g = Generator(state: seed)
        return makeImage(width: width, height: height) { x, y in
            let a: UInt8 =
                switch alpha {
                case 0: 255
                case 1: UInt8(g.below(256))
                default: y % 7 == 3 ? UInt8(g.below(3)) : 255
                }
            return [UInt8((x * 37 + y * 11 + g.below(40)) % 256), UInt8(g.below(256)), (x / 3) % 2 == 0 ? 255 : 0, a]
        }
    }

    /// The resample written out plainly, one pixel and one tap at a time.
    static func reference(_ image: Image, plan: ResizePlan, filter: ResizeTransformer.Filter) throws -> [UInt8] {
        let width = image.width, height = image.height
        let columns = try WeightTable(
            inputSize: width, boxStart: plan.box.x, boxLength: plan.box.width, count: plan.outputWidth, filter: filter)
        let rows = try WeightTable(
            inputSize: height, boxStart: plan.box.y, boxLength: plan.box.height, count: plan.outputHeight,
            filter: filter)
        let taps = (columns.widestTapCount + 1) & ~1
        var filtered: [[SIMD4<Float>]] = []
        var opaque: [Bool] = []
        for y in 0..<height {
            let rowIsOpaque = (0..<width).allSatisfy { image.pixels[(y * width + $0) * 4 + 3] == 255 }
            // Taps past a column's own count weigh 0; past the row's end they read zeros.
            let line = (0..<(width + taps)).map { x -> SIMD4<Float> in
                guard x < width else { return .zero }
                let i = (y * width + x) * 4
                let p = SIMD4<Float>((0..<4).map { Float(image.pixels[i + $0]) })
                guard !rowIsOpaque, p[3] != 255 else { return p }
                var premultiplied = p * (p[3] * (1 / 255))
                premultiplied[3] = p[3]
                return premultiplied
            }
            filtered.append(
                (0..<plan.outputWidth).map { j in
                    let weights = columns.weights + j * columns.stride
                    var even = SIMD4<Float>.zero, odd = SIMD4<Float>.zero
                    for k in stride(from: 0, to: taps, by: 2) {
                        even += line[columns.starts[j] + k] * weights[k]
                        odd += line[columns.starts[j] + k + 1] * weights[k + 1]
                    }
                    return even + odd
                })
            opaque.append(rowIsOpaque)
        }
        var bytes: [UInt8] = []
        for i in 0..<plan.outputHeight {
            let start = rows.starts[i], count = rows.tapCounts[i]
            let weights = rows.weights + i * rows.stride
            let allOpaque = (start..<(start + count)).allSatisfy { opaque[$0] }
            for j in 0..<plan.outputWidth {
                var sum = SIMD4<Float>.zero
                for k in stride(from: 0, to: count, by: 2) {
                    // An odd last row pairs with itself at the table's padding weight, 0.
                    let second = k + 1 < count ? filtered[start + k + 1][j] : filtered[start + k][j]
                    let pair = filtered[start + k][j] * weights[k] + second * weights[k + 1]
                    sum = k == 0 ? pair : sum + pair
                }
                if !allOpaque {
                    let alpha = sum[3]
                    if alpha >= 0.5 {
                        sum *= 255 / alpha
                        sum[3] = alpha
                    } else {
                        sum = .zero
                    }
                }
                bytes += (0..<4).map { UInt8(min(max(sum[$0], 0), 255) + 0.5) }
            }
        }
        return bytes
    }

    /// Source and output sizes: shrinks by about 1, 2 and 3 (the column steps with shared loads) and others,
    /// widths that leave 1 to 3 pixels past a multiple of 4, upscales, and tap counts past the unrolled ones.
    static let geometries: [(Int, Int, Int, Int)] = [
        (37, 29, 18, 14), (61, 40, 20, 13), (50, 50, 49, 47), (41, 23, 41, 11), (90, 70, 23, 9),
        (13, 9, 31, 22), (7, 5, 3, 2), (200, 31, 9, 5), (33, 64, 7, 33), (1, 9, 3, 4)
    ]

    @Test(
        arguments: [ResizeTransformer.Filter.bilinear, .bicubic, .lanczos3], [ResizeTransformer.Mode.stretch, .fill])
    func matchesThePlainResampleByteForByte(filter: ResizeTransformer.Filter, mode: ResizeTransformer.Mode) throws {
        for (n, g) in Self.geometries.enumerated() {
            for alpha in 0..<3 {
                let image = Self.image(width: g.0, height: g.1, alpha: alpha, seed: UInt64(n * 3 + alpha))
                let resize = ResizeTransformer(width: g.2, height: g.3, mode: mode, filter: filter, upscale: true)
                guard let plan = resize.plan(sourceWidth: g.0, sourceHeight: g.1), !plan.isPlainCrop else { continue }
                let output = try resize.transform(image)
                let expected = try Self.reference(image, plan: plan, filter: filter)
                #expect(output.pixels == expected, "\(g) alpha \(alpha)")
            }
        }
    }
}
