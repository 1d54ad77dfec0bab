import Foundation
import Testing
import TroveCore
import TroveTransformers

@Suite struct ResamplingTests {
    static let filters = ResizeTransformer.Filter.allCases
    static let smoothFilters: [ResizeTransformer.Filter] = [.bilinear, .bicubic, .lanczos3]

    @Test(arguments: filters, [[200, 100, 50, 255], [13, 250, 99, 128], [0, 0, 0, 1], [255, 255, 255, 255]])
    func solidColourStaysExactlyThatColour(filter: ResizeTransformer.Filter, colour: [UInt8]) throws {
        let resizes = [
            ResizeTransformer(width: 10, height: 7, mode: .stretch, filter: filter),  // 37x23 down, uneven ratios
            ResizeTransformer(width: 90, height: 50, mode: .stretch, filter: filter, upscale: true),
            ResizeTransformer(width: 15, height: 15, mode: .fill, filter: filter),
            ResizeTransformer(width: 1, height: 1, mode: .stretch, filter: filter)
        ]
        let image = solidImage(width: 37, height: 23, colour)
        for resize in resizes {
            let output = try resize.transform(image)
            for y in 0..<output.height {
                for x in 0..<output.width where pixel(output, x, y) != colour {
                    Issue.record("\(resize.identifier): pixel (\(x), \(y)) is \(pixel(output, x, y)), not \(colour)")
                    return
                }
            }
        }
    }

    @Test func bilinearHalvingUsesTheStretchedTriangle() throws {
        // Halving stretches the triangle to a support of 2 source pixels: output i is centred at source
        // position 2i + 1, and pixels 2i-1, 2i, 2i+1, 2i+2 (centres 1.5, 0.5, 0.5, 1.5 away, divided by the
        // stretch 2) weigh 1 - 0.75, 1 - 0.25, 1 - 0.25, 1 - 0.75, i.e. 1, 3, 3, 1 eighths. Past an edge a tap
        // is dropped and the rest renormalised (as Pillow does): 3, 3, 1 sevenths at the borders.
        let values: [Int] = [0, 40, 80, 120, 160, 200, 240, 250]
        let image = makeImage(width: 8, height: 2) { x, _ in
            let v = UInt8(values[x])
            return [v, v, v, 255]
        }
        let output = try ResizeTransformer(width: 4, height: 1, mode: .stretch).transform(image)
        let v = values.map(Double.init)
        let expected: [UInt8] = [
            (3 * v[0] + 3 * v[1] + v[2]) / 7,  // 28.57 -> 29
            (v[1] + 3 * v[2] + 3 * v[3] + v[4]) / 8,  // 100
            (v[3] + 3 * v[4] + 3 * v[5] + v[6]) / 8,  // 180
            (v[5] + 3 * v[6] + 3 * v[7]) / 7  // 238.57 -> 239
        ].map { UInt8($0.rounded()) }
        #expect(expected == [29, 100, 180, 239])
        for i in 0..<4 {
            #expect(pixel(output, i, 0) == [expected[i], expected[i], expected[i], 255], "column \(i)")
        }
    }

    @Test(arguments: [(8, 6, 4, 3), (9, 7, 4, 5), (5, 5, 12, 9), (23, 40, 7, 13), (6, 9, 6, 31)])
    func bilinearMatchesTheKernelDefinitionIn2D(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) throws {
        // Varied colours and alphas, so premultiplied weighting is checked too.
        let image = makeImage(width: sourceWidth, height: sourceHeight) { x, y in
            [
                UInt8((x * 37 + y * 91) % 256), UInt8((x * 13 + y * 7) % 256), UInt8((x * y * 29) % 256),
                UInt8(255 - (x * 20 + y * 15) % 200)
            ]
        }
        let output = try ResizeTransformer(width: width, height: height, mode: .stretch, upscale: true)
            .transform(image)
        #expect(output.width == width && output.height == height)
        for j in 0..<height {
            let rowWeights = triangleWeights(output: j, inputSize: sourceHeight, outputSize: height)
            for i in 0..<width {
                let columnWeights = triangleWeights(output: i, inputSize: sourceWidth, outputSize: width)
                var premultiplied = [Double](repeating: 0, count: 4)
                for (y, wy) in rowWeights {
                    for (x, wx) in columnWeights {
                        let p = pixel(image, x, y).map(Double.init)
                        let w = wx * wy
                        for c in 0..<3 { premultiplied[c] += w * p[c] * p[3] / 255 }
                        premultiplied[3] += w * p[3]
                    }
                }
                let alpha = premultiplied[3]
                let expected = (0..<3).map { premultiplied[$0] * 255 / alpha } + [alpha]
                let actual = pixel(output, i, j)
                for c in 0..<4 {
                    // Float vs Double may round a value sitting on a half either way; elsewhere demand exactness.
                    let onAHalf = abs(expected[c] - expected[c].rounded(.down) - 0.5) < 0.01
                    let difference = abs(Double(actual[c]) - expected[c].rounded())
                    #expect(
                        difference <= (onAHalf ? 1 : 0),
                        "pixel (\(i), \(j)) channel \(c): \(actual[c]) vs \(expected[c])")
                }
            }
        }
    }

    @Test func nearestPicksTheSourcePixelUnderEachCentre() throws {
        // Halving: output i's centre falls at source 2i + 1.
        let image = makeImage(width: 6, height: 2) { x, y in [UInt8(x * 40), UInt8(y), UInt8(x), 255 - UInt8(x)] }
        let output = try ResizeTransformer(width: 3, height: 1, mode: .stretch, filter: .nearest).transform(image)
        #expect(output.pixels == pixel(image, 1, 1) + pixel(image, 3, 1) + pixel(image, 5, 1))
    }

    @Test(arguments: smoothFilters, [20, 150])
    func horizontalGradientStaysMonotonic(filter: ResizeTransformer.Filter, width: Int) throws {
        let image = makeImage(width: 64, height: 3) { x, _ in
            let v = UInt8(x * 4)
            return [v, v, v, 255]
        }
        let output = try ResizeTransformer(width: width, height: 3, mode: .stretch, filter: filter, upscale: true)
            .transform(image)
        for y in 0..<3 {
            let reds = (0..<width).map { pixel(output, $0, y)[0] }
            #expect(zip(reds, reds.dropFirst()).allSatisfy { $0 <= $1 }, "row \(y): \(reds)")
            #expect(reds[0] < 10 && reds[width - 1] > 240, "the ends keep the range: \(reds)")
        }
    }

    @Test(arguments: filters)
    func transparentPixelsLeaveNoFringe(filter: ResizeTransformer.Filter) throws {
        // Fully transparent red left half, opaque blue right half. Straight-alpha averaging would mix the
        // invisible red (and any dark colour) into the boundary; premultiplied averaging keeps it pure blue.
        let image = makeImage(width: 16, height: 4) { x, _ in x < 8 ? [255, 0, 0, 0] : [0, 0, 255, 255] }
        let output = try ResizeTransformer(width: 5, height: 2, mode: .stretch, filter: filter).transform(image)
        let blended = expectVisiblePixelsBlue(output)
        if filter != .nearest {
            #expect(blended > 0, "the boundary must be blended for the test to mean anything")
        }
    }

    @Test(arguments: smoothFilters, [UInt8(0), 128])
    func rowsMixingOpaqueAndTranslucentStillUndoAlpha(filter: ResizeTransformer.Filter, lowerAlpha: UInt8) throws {
        // Bands of 16 rows, opaque blue and translucent (or invisible) red by turns: output rows near a
        // boundary read both kinds of rows, and only undoing the premultiplication keeps their colour pure
        // blue. A slight shrink keeps the ring of filtered rows far smaller than a band, so a translucent
        // band's rows reuse slots that held opaque rows, and some outputs read translucent rows only.
        let lowerColour: [UInt8] = lowerAlpha == 0 ? [255, 0, 0, 0] : [0, 0, 255, lowerAlpha]
        let image = makeImage(width: 6, height: 64) { _, y in (y / 16) % 2 == 0 ? [0, 0, 255, 255] : lowerColour }
        let output = try ResizeTransformer(width: 3, height: 56, mode: .stretch, filter: filter).transform(image)
        #expect(
            expectVisiblePixelsBlue(output) > 0, "the boundary rows must blend alphas for the test to mean anything")
    }

    /// Expects every visible pixel of `image` to be blue within rounding; returns how many are translucent.
    private func expectVisiblePixelsBlue(_ image: Image) -> Int {
        var translucent = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = pixel(image, x, y)
                guard p[3] > 0 else { continue }
                if p[3] < 255 { translucent += 1 }
                #expect(p[0] <= 2 && p[1] <= 2 && p[2] >= 253, "pixel (\(x), \(y)) is \(p)")
            }
        }
        return translucent
    }

    @Test func convertsGrayImagesToRGBA() throws {
        let gray = Image(width: 4, height: 4, pixelFormat: .gray8, pixels: [UInt8](repeating: 100, count: 16))
        let output = try ResizeTransformer(width: 2, height: 2).transform(gray)
        #expect(output.pixelFormat == .rgba8)
        #expect(output.pixels == Array([[UInt8]](repeating: [100, 100, 100, 255], count: 4).joined()))
    }

    @Test(arguments: [ResizeTransformer.Filter.bicubic, .lanczos3], [5, 13])
    func cubicAndLanczosMatchTheirKernelDefinitions(filter: ResizeTransformer.Filter, width: Int) throws {
        let kernel: (Double) -> Double, support: Double
        switch filter {
        case .bicubic:
            // Keys' cubic with a = -0.5, expanded: 1.5t^3 - 2.5t^2 + 1 inside 1, -0.5t^3 + 2.5t^2 - 4t + 2 up to 2.
            support = 2
            kernel = { t in
                let t = abs(t)
                return t < 1
                    ? 1.5 * t * t * t - 2.5 * t * t + 1 : t < 2 ? -0.5 * t * t * t + 2.5 * t * t - 4 * t + 2 : 0
            }
        default:
            // Lanczos with a = 3: sinc(t) sinc(t/3) = 3 sin(pi t) sin(pi t / 3) / (pi t)^2.
            support = 3
            kernel = { t in
                if t == 0 { return 1 }
                return abs(t) < 3
                    ? 3 * sin(Double.pi * t) * sin(Double.pi * t / 3) / (Double.pi * Double.pi * t * t) : 0
            }
        }
        let values = [10, 200, 30, 90, 250, 0, 120, 121, 122, 40, 255, 255, 0, 70, 180, 60]
        let sourceWidth = width < values.count ? values.count : 5
        let image = makeImage(width: sourceWidth, height: 1) { x, _ in
            let v = UInt8(values[x])
            return [v, v, v, 255]
        }
        let output = try ResizeTransformer(width: width, height: 1, mode: .stretch, filter: filter, upscale: true)
            .transform(image)
        for i in 0..<width {
            let weights = kernelWeights(
                output: i, inputSize: sourceWidth, outputSize: width, support: support,
                kernel: kernel)
            let exact = weights.reduce(0) { $0 + $1.value * Double(values[$1.key]) }
            let expected = min(max(exact, 0), 255)
            let onAHalf = abs(expected - expected.rounded(.down) - 0.5) < 0.01
            let difference = abs(Double(pixel(output, i, 0)[0]) - expected.rounded())
            #expect(difference <= (onAHalf ? 1 : 0), "column \(i): \(pixel(output, i, 0)) vs \(expected)")
            #expect(pixel(output, i, 0)[3] == 255)
        }
    }

    /// Bilinear weights straight from the definition: the triangle 1 - |t|.
    private func triangleWeights(output i: Int, inputSize n: Int, outputSize m: Int) -> [Int: Double] {
        kernelWeights(output: i, inputSize: n, outputSize: m, support: 1) { max(0, 1 - abs($0)) }
    }

    /// Weights straight from a kernel's definition: stretched by the downscale ratio, evaluated at each
    /// source pixel centre, taps past the edges dropped, normalised to sum 1.
    private func kernelWeights(
        output i: Int, inputSize n: Int, outputSize m: Int, support: Double,
        kernel: (Double) -> Double
    ) -> [Int: Double] {
        let scale = Double(n) / Double(m)
        let stretch = max(scale, 1)
        let centre = (Double(i) + 0.5) * scale
        var weights: [Int: Double] = [:]
        for x in 0..<n {
            let t = (Double(x) + 0.5 - centre) / stretch
            guard abs(t) < support else { continue }
            weights[x] = kernel(t)
        }
        let total = weights.values.reduce(0, +)
        return weights.mapValues { $0 / total }
    }
}
