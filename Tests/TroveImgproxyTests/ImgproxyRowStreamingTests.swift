import Testing
import Trove
import TroveCore

@testable import TroveImgproxy

/// imgproxy's resize fed row by row, as a decoder streams them: the same pixels as resizing the decoded
/// image, at full size or from a reduced copy, for each resizing type, crop and gravity.
@Suite struct ImgproxyRowStreamingTests {
    /// Colour and alpha that vary on both axes, with fully transparent patches, so premultiplication matters.
    static func pattern(width: Int, height: Int) -> Image {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                pixels[i] = UInt8((x * 255) / max(width - 1, 1))
                pixels[i + 1] = UInt8((y * 13) % 256)
                pixels[i + 2] = UInt8((x ^ y) % 256)
                pixels[i + 3] = (x / 7 + y / 5) % 4 == 0 ? 0 : UInt8((x * 3 + y * 5) % 256)
            }
        }
        return Image(width: width, height: height, pixels: pixels, sourceFormat: .png)
    }

    /// Hands `image`'s rows to the sink one by one, each from the same scratch row, as a decoder does.
    static func deliver(_ image: Image, to sink: any ImageRowSink) throws {
        try sink.begin(RowStreamHeader(width: image.width, height: image.height, sourceFormat: .png))
        var scratch = [UInt8](repeating: 0, count: image.width * 4)
        for y in 0..<image.height {
            scratch.replaceSubrange(
                0..<scratch.count, with: image.pixels[(y * image.width * 4)..<((y + 1) * image.width * 4)])
            try scratch.withUnsafeBufferPointer { try sink.consume($0.baseAddress!) }
        }
    }

    static let resizes: [ImgproxyResize] = [
        ImgproxyResize(resizingType: .fit, width: 40, height: 40),
        ImgproxyResize(resizingType: .fill, width: 30, height: 45, gravity: .anchor(.east), filter: .bicubic),
        ImgproxyResize(resizingType: .force, width: 50, height: 20, filter: .bilinear),
        ImgproxyResize(resizingType: .fillDown, width: 33, height: 33, gravity: .anchor(.south)),
        ImgproxyResize(resizingType: .fit, width: 0, height: 25, crop: .init(width: 0.5, height: 0.75)),
        ImgproxyResize(
            resizingType: .fill, width: 20, height: 20, gravity: .anchor(.northWest),
            crop: .init(width: 90, height: 60, gravity: .anchor(.southEast)))
    ]

    @Test(arguments: resizes)
    func aFullSizeStreamMatchesTheWholeImageResize(_ resize: ImgproxyResize) throws {
        let stored = PixelSize(width: 161, height: 113)
        let image = Self.pattern(width: stored.width, height: stored.height)
        #expect(resize.streamsRows(from: stored))
        let expected = try resize.transform(image)
        let streamed = try resize.resize(storedSize: stored) { try Self.deliver(image, to: $0) }
        #expect(streamed.width == expected.width && streamed.height == expected.height)
        #expect(streamed.pixels == expected.pixels)
    }

    @Test(arguments: resizes)
    func aReducedStreamMatchesTheReducedSourceResize(_ resize: ImgproxyResize) throws {
        // As if a decoder shrank a 644x452 image by 4 before streaming it.
        let stored = PixelSize(width: 644, height: 452)
        let reduced = Self.pattern(width: 161, height: 113)
        let expected = try resize.forReducedSource(PixelSize(width: 161, height: 113), of: stored).transform(reduced)
        let streamed = try resize.resize(storedSize: stored) { try Self.deliver(reduced, to: $0) }
        #expect(streamed.width == expected.width && streamed.height == expected.height)
        #expect(streamed.pixels == expected.pixels)
    }

    @Test func aReducedRegionAlreadyAtTheOutputSizeIsCopied() throws {
        // 400x200 to 100 wide, delivered reduced by 4: the region is already 100x50 and only needs keeping.
        let resize = ImgproxyResize(resizingType: .fit, width: 100)
        let reduced = Self.pattern(width: 100, height: 50)
        let streamed = try resize.resize(storedSize: PixelSize(width: 400, height: 200)) {
            try Self.deliver(reduced, to: $0)
        }
        #expect(streamed.width == 100 && streamed.height == 50)
        #expect(streamed.pixels == reduced.pixels)
    }

    @Test func aResultOverTheLimitIsLeftToTheTransformAndRefusedBeforeAnyRow() throws {
        let resize = ImgproxyResize(resizingType: .fit, width: 300, maxResultDimension: 200)
        #expect(!resize.streamsRows(from: PixelSize(width: 1000, height: 500)), "the transform refuses it")
        #expect(
            ImgproxyResize(resizingType: .fit, width: 200, maxResultDimension: 200)
                .streamsRows(from: PixelSize(width: 1000, height: 500)))
        let error = #expect(throws: ImgproxyURLError.self) {
            try resize.makeRowSink(storedSize: PixelSize(width: 1000, height: 500))
        }
        #expect(error?.status == 422)
    }

    @Test func tooFewOrTooManyRowsAreErrors() throws {
        let resize = ImgproxyResize(resizingType: .fit, width: 10, height: 10)
        let stored = PixelSize(width: 40, height: 40)
        let image = Self.pattern(width: 40, height: 40)
        #expect(throws: TroveError.self) {
            try resize.resize(storedSize: stored) { sink in
                try sink.begin(RowStreamHeader(width: 40, height: 40, sourceFormat: .png))
                try image.pixels.withUnsafeBufferPointer { try sink.consume($0.baseAddress!) }
            }
        }
        #expect(throws: TroveError.self) {
            try resize.resize(storedSize: stored) { sink in
                try Self.deliver(image, to: sink)
                try image.pixels.withUnsafeBufferPointer { try sink.consume($0.baseAddress!) }
            }
        }
    }

    @Test func onlyShrinkingResamplingResizesStream() {
        let source = PixelSize(width: 100, height: 80)
        #expect(!ImgproxyResize(width: 50, filter: .nearest).streamsRows(from: source))
        #expect(!ImgproxyResize(width: 200, enlarge: true).streamsRows(from: source))
        #expect(!ImgproxyResize(width: 100).streamsRows(from: source), "no change")
        #expect(!ImgproxyResize(crop: .init(width: 50, height: 50)).streamsRows(from: source), "a crop alone")
        #expect(ImgproxyResize(width: 50).streamsRows(from: source))
    }
}
