import Testing
import TroveCore

@testable import TroveTransformers

/// The streaming resize, fed one row at a time, makes exactly the pixels of the two-pass resize of the whole
/// image, from the full-size image or a reduced copy, while holding only a window of filtered rows.
@Suite struct StreamingResizerTests {
    /// Hands `image`'s rows to the sink one by one, as a decoder would, each from the same scratch row.
    static func deliver(_ image: Image, to sink: any ImageRowSink) throws {
        try sink.begin(
            RowStreamHeader(width: image.width, height: image.height, sourceFormat: .png, orientation: .left))
        var scratch = [UInt8](repeating: 0, count: image.width * 4)
        for y in 0..<image.height {
            scratch.replaceSubrange(
                0..<scratch.count, with: image.pixels[(y * image.width * 4)..<((y + 1) * image.width * 4)])
            try scratch.withUnsafeBufferPointer { try sink.consume($0.baseAddress!) }
        }
    }

    /// Colour and alpha that vary on both axes, with fully transparent patches, so premultiplication matters.
    static func pattern(width: Int, height: Int) -> Image {
        makeImage(width: width, height: height) { x, y in
            let alpha = (x / 7 + y / 5) % 4 == 0 ? 0 : UInt8((x * 3 + y * 5) % 256)
            return [UInt8((x * 255) / max(width - 1, 1)), UInt8((y * 13) % 256), UInt8((x ^ y) % 256), alpha]
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let source: PixelSize
        let spec: (Int?, Int?, ResizeTransformer.Mode)
        let filter: ResizeTransformer.Filter
        var testDescription: String {
            "\(source) to \(spec.0.map(String.init) ?? "auto")x\(spec.1.map(String.init) ?? "auto") \(spec.2) \(filter)"
        }
        var resize: ResizeTransformer { ResizeTransformer(width: spec.0, height: spec.1, mode: spec.2, filter: filter) }
    }

    static let cases: [Case] = [
        Case(source: PixelSize(width: 97, height: 61), spec: (40, 40, .fit), filter: .bilinear),
        Case(source: PixelSize(width: 97, height: 61), spec: (40, 40, .fit), filter: .bicubic),
        Case(source: PixelSize(width: 97, height: 61), spec: (40, 40, .fit), filter: .lanczos3),
        Case(source: PixelSize(width: 120, height: 200), spec: (33, 17, .fill), filter: .lanczos3),
        Case(source: PixelSize(width: 200, height: 90), spec: (31, 31, .fill), filter: .bicubic),
        Case(source: PixelSize(width: 64, height: 300), spec: (50, 7, .stretch), filter: .bilinear),
        Case(source: PixelSize(width: 301, height: 149), spec: (nil, 20, .fit), filter: .lanczos3),
        // Barely shrinking: the window is most of a handful of rows, each output reading few.
        Case(source: PixelSize(width: 50, height: 50), spec: (49, 48, .stretch), filter: .bicubic)
    ]

    @Test(arguments: cases)
    func matchesTheTwoPassResizePixelForPixel(_ c: Case) throws {
        let image = Self.pattern(width: c.source.width, height: c.source.height)
        #expect(c.resize.streamsRows(from: c.source))
        let expected = try c.resize.transform(image)
        var window = 0
        let streamed = try c.resize.resize(storedSize: c.source) { sink in
            try Self.deliver(image, to: sink)
            window = (sink as? StreamingResizer)?.windowRows ?? -1
        }
        #expect(streamed.width == expected.width && streamed.height == expected.height)
        #expect(streamed.pixels == expected.pixels)
        #expect(streamed.orientation == .left && streamed.sourceFormat == .png, "the header's metadata is kept")
        #expect(window > 0 && window < c.source.height, "window \(window) of \(c.source.height) rows")
    }

    @Test(arguments: [ResizeTransformer.Filter.bilinear, .lanczos3])
    func opaqueAndTranslucentBandsStreamAsTheyResizeWhole(filter: ResizeTransformer.Filter) throws {
        // Opaque bands (no alpha to undo) between translucent ones, through a window smaller than the image.
        let image = makeImage(width: 40, height: 90) { x, y in
            [UInt8(x * 6), UInt8(y * 2), 90, (y / 10) % 2 == 0 ? 255 : UInt8(40 + x)]
        }
        let resize = ResizeTransformer(width: 17, height: 23, mode: .stretch, filter: filter)
        let expected = try resize.transform(image)
        var window = 0
        let streamed = try resize.resize(storedSize: PixelSize(width: 40, height: 90)) { sink in
            try Self.deliver(image, to: sink)
            window = (sink as? StreamingResizer)?.windowRows ?? -1
        }
        #expect(streamed.pixels == expected.pixels)
        #expect(window > 0 && window < 90, "window \(window) of 90 rows: its slots must be reused")
    }

    @Test(arguments: [ResizeTransformer.Filter.bilinear, .lanczos3])
    func aReducedCopyResizesAsTheReducedSourcePlanDoes(filter: ResizeTransformer.Filter) throws {
        // As if a decoder shrank a 403x297 image by 4 (rounding up) before streaming it.
        let stored = PixelSize(width: 403, height: 297)
        let reduced = Self.pattern(width: 101, height: 75)
        for resize in [
            ResizeTransformer(width: 40, height: 40, mode: .fit, filter: filter),
            ResizeTransformer(width: 30, height: 30, mode: .fill, filter: filter)
        ] {
            let expected = try resize.forReducedSource(PixelSize(width: 101, height: 75), of: stored).transform(reduced)
            let streamed = try resize.resize(storedSize: stored) { try Self.deliver(reduced, to: $0) }
            #expect(streamed.pixels == expected.pixels, "\(resize.identifier)")
            #expect(streamed.width == expected.width && streamed.height == expected.height)
        }
    }

    @Test func theWindowIsAboutTheFilterSupportNotTheImage() throws {
        // 3000 rows to 30: lanczos3 reads 6 x 100 = 600 source rows per output row, a fifth of the image.
        let resize = ResizeTransformer(width: 10, height: 30, mode: .stretch, filter: .lanczos3)
        let image = Self.pattern(width: 20, height: 3000)
        var window = 0
        let streamed = try resize.resize(storedSize: PixelSize(width: 20, height: 3000)) { sink in
            try Self.deliver(image, to: sink)
            window = (sink as? StreamingResizer)?.windowRows ?? -1
        }
        #expect(streamed.pixels == (try resize.transform(image)).pixels)
        #expect(window > 500 && window <= 610, "window \(window) of 3000 rows")
    }

    @Test func tooFewOrTooManyRowsAreErrors() throws {
        let resize = ResizeTransformer(width: 10, height: 10)
        let image = Self.pattern(width: 40, height: 40)
        #expect(throws: TroveError.self) {
            try resize.resize(storedSize: PixelSize(width: 40, height: 40)) { sink in
                try sink.begin(RowStreamHeader(width: 40, height: 40, sourceFormat: .png))
                try image.pixels.withUnsafeBufferPointer { try sink.consume($0.baseAddress!) }
            }
        }
        #expect(throws: TroveError.self) {
            try resize.resize(storedSize: PixelSize(width: 40, height: 40)) { sink in
                try Self.deliver(image, to: sink)
                try image.pixels.withUnsafeBufferPointer { try sink.consume($0.baseAddress!) }
            }
        }
        #expect(throws: TroveError.self) {
            try resize.resize(storedSize: PixelSize(width: 40, height: 40)) { sink in
                try image.pixels.withUnsafeBufferPointer { try sink.consume($0.baseAddress!) }
            }
        }
    }

    @Test func onlyShrinkingConvolvingResizesStream() {
        let source = PixelSize(width: 100, height: 80)
        #expect(!ResizeTransformer(width: 50, height: nil, filter: .nearest).streamsRows(from: source))
        #expect(!ResizeTransformer(width: 200, height: 200, upscale: true).streamsRows(from: source))
        #expect(!ResizeTransformer(width: 150, height: 40, mode: .stretch, upscale: true).streamsRows(from: source))
        #expect(!ResizeTransformer(width: 100, height: 80).streamsRows(from: source), "no change")
        #expect(ResizeTransformer(width: 50, height: nil).streamsRows(from: source))
    }
}
