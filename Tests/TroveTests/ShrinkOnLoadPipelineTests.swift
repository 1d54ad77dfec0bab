import Foundation
import Synchronization
import Testing
import Trove
import TroveCodec
import TroveTestSupport
import TroveTransformers

/// The pipeline asks the decoder for a reduced image when the first transform shrinks, and still delivers
/// the full-size path's output size. A recording decoder shows the full-size buffer was never made.
@Suite struct ShrinkOnLoadPipelineTests {
    /// What each decode was asked for and what size it produced.
    final class DecodeLog: Sendable {
        let entries = Mutex<[(minimum: PixelSize?, produced: PixelSize)]>([])
        func record(_ minimum: PixelSize?, _ image: Image) {
            entries.withLock { $0.append((minimum, PixelSize(width: image.width, height: image.height))) }
        }
    }

    /// The standard PNG decoder, recording every call; registered in its place.
    struct RecordingDecoder: ImageDecoder {
        let name = "png"
        let format = ImageFormat.png
        let inner = PNGDecoder()
        let log: DecodeLog
        /// The least reducing gap it claims: the PNG decoder's (2) unless a test stands it for a decoder whose
        /// reduction is a filter (1).
        var claimedGap: Double? = nil

        var leastReducingGap: Double { claimedGap ?? inner.leastReducingGap }
        var reducesByBlocks: Bool { inner.reducesByBlocks }

        func canDecode(_ header: Data) -> Bool { inner.canDecode(header) }

        func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
            let image = try inner.decode(data, limits: limits)
            log.record(nil, image)
            return image
        }

        func decode(_ data: Data, options: DecodingOptions) throws -> Image {
            let image = try inner.decode(data, options: options)
            log.record(options.minimumSize, image)
            return image
        }

        func info(_ data: Data) throws -> ImageInfo? { try inner.info(data) }
    }

    func load(
        _ spec: String, log: DecodeLog, reducingGap: Double = ShrinkOnLoad.defaultReducingGap,
        claimedGap: Double? = nil, source: URL = Fixtures.image("coffee.png")  // 600x400
    ) async throws -> (ImageResponse, expected: Image) {
        var registry = PluginRegistry.standard
        try registry.register(decoder: RecordingDecoder(log: log, claimedGap: claimedGap), replacing: true)
        let transforms = try registry.transformers(forSpec: spec)
        let url = source
        var expected = try PNGDecoder().decode(Data(contentsOf: url), limits: .default)
        for transformer in transforms { expected = try transformer.transform(expected) }
        return try await withTemporaryDirectory { directory in
            var configuration = PipelineConfiguration(cacheDirectory: directory)
            configuration.shrinkOnLoadReducingGap = reducingGap
            let pipeline = try ImagePipeline(registry: registry, configuration: configuration)
            return (try await pipeline.image(for: ImageRequest(url: url, transforms: transforms)), expected)
        }
    }

    @Test func fitDecodesAtHalfSizeAndResizesExactly() async throws {
        let log = DecodeLog()
        let (response, expected) = try await load("resize:w=100,h=100,mode=fit,filter=lanczos3", log: log)
        let entries = log.entries.withLock { $0 }
        // 100x67 out: at least 200x134 asked; the PNG decoder halves to 300x200 (a quarter would be 150 wide).
        #expect(entries.count == 1)
        #expect(entries.first?.minimum == PixelSize(width: 200, height: 134))
        #expect(entries.first?.produced == PixelSize(width: 300, height: 200))
        #expect(entries.allSatisfy { $0.produced != PixelSize(width: 600, height: 400) })
        #expect(response.image.width == 100 && response.image.height == 67)
        #expect(response.image.width == expected.width && response.image.height == expected.height)
        let value = psnr(response.image, expected)
        #expect(value >= 40, "PSNR \(value) dB against decoding at full size")
    }

    /// A decoder whose reduction is a filter (JPEG's scaled IDCT) is asked for the output size itself.
    @Test func aReducingGapOfOneReducesAsFarAsTheOutput() async throws {
        let log = DecodeLog()
        let (response, expected) = try await load(
            "resize:w=100,h=100,mode=fit,filter=lanczos3", log: log, reducingGap: 1, claimedGap: 1)
        let entries = log.entries.withLock { $0 }
        // 100x67 out and a gap of 1: at least 100x67 asked, so the quarter (150x100) will do.
        #expect(entries.count == 1)
        #expect(entries.first?.minimum == PixelSize(width: 100, height: 67))
        #expect(entries.first?.produced == PixelSize(width: 150, height: 100))
        #expect(response.image.width == 100 && response.image.height == 67)
        let value = psnr(response.image, expected)
        // 43.8 dB here: a little under the gap of 2's, still within the 40 dB the thumbnails are held to.
        #expect(value >= 40, "PSNR \(value) dB against decoding at full size")
    }

    /// PNG's reduction averages boxes, so even under a gap of 1 (`trove serve`'s) it leaves the filter at least
    /// a halving: stripes a pixel or two wide fit to half size come out as the full decode resized gives them,
    /// not as a 2x2 box average of them.
    @Test func pngsBoxLeavesTheFilterAHalvingUnderAGapOfOne() async throws {
        try await withTemporaryDirectory { folder in
            let (width, height) = (600, 400)
            var pixels = [UInt8](repeating: 255, count: width * height * 4)
            for y in 0..<height {
                for x in 0..<width where (x + y / 3) % 3 == 0 || (x * 7 + y) % 5 == 0 {
                    pixels.replaceSubrange((y * width + x) * 4..<(y * width + x) * 4 + 3, with: [0, 0, 0])
                }
            }
            let stripes = Image(width: width, height: height, pixelFormat: .rgba8, pixels: pixels)
            let url = folder.appendingPathComponent("stripes.png")
            try PNGEncoder().encode(stripes, options: EncodingOptions()).write(to: url)
            let log = DecodeLog()
            let (response, expected) = try await load(
                "resize:w=300,h=300,mode=fit,filter=lanczos3", log: log, reducingGap: 1, source: url)
            let entries = log.entries.withLock { $0 }
            #expect(entries.first?.minimum == nil && entries.first?.produced == PixelSize(width: 600, height: 400))
            #expect(response.image.width == 300 && response.image.height == 200)
            #expect(response.image == expected, "PSNR \(psnr(response.image, expected)) dB")
            // Smaller: the box takes 8x (to 75x50, at least twice 37x25), the filter the rest.
            let small = DecodeLog()
            let (shrunk, full) = try await load(
                "resize:w=37,h=37,mode=fit,filter=lanczos3", log: small, reducingGap: 1, source: url)
            #expect(small.entries.withLock { $0.first?.produced } == PixelSize(width: 75, height: 50))
            #expect(psnr(shrunk.image, full) >= 35, "PSNR \(psnr(shrunk.image, full)) dB")
        }
    }

    @Test func fillCoversItsCropBox() async throws {
        let log = DecodeLog()
        let (response, expected) = try await load("resize:w=64,h=64,mode=fill", log: log)
        let entries = log.entries.withLock { $0 }
        // fill reads the centred 400x400: 64 out needs 128 of it, so 192x128 of the whole.
        #expect(entries.first?.minimum == PixelSize(width: 192, height: 128))
        #expect(entries.first?.produced == PixelSize(width: 300, height: 200))
        #expect(response.image.width == 64 && response.image.height == 64)
        let value = psnr(response.image, expected)
        #expect(value >= 40, "PSNR \(value) dB against decoding at full size")
    }

    @Test func aSmallShrinkDecodesAtFullSize() async throws {
        let log = DecodeLog()
        let (response, expected) = try await load("resize:w=400", log: log)
        let entries = log.entries.withLock { $0 }
        #expect(entries.count == 1 && entries.first?.minimum == nil)
        #expect(entries.first?.produced == PixelSize(width: 600, height: 400))
        #expect(response.image == expected)
    }

    @Test func aLeadingTransformThatIsNotAResizeDecodesAtFullSize() async throws {
        let log = DecodeLog()
        let (response, expected) = try await load("grayscale|resize:w=50", log: log)
        #expect(log.entries.withLock { $0.first?.produced } == PixelSize(width: 600, height: 400))
        #expect(response.image == expected)
    }
}
