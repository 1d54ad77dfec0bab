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
        _ spec: String, log: DecodeLog, reducingGap: Double = ShrinkOnLoad.defaultReducingGap
    ) async throws -> (ImageResponse, expected: Image) {
        var registry = PluginRegistry.standard
        try registry.register(decoder: RecordingDecoder(log: log), replacing: true)
        let transforms = try registry.transformers(forSpec: spec)
        let url = Fixtures.image("coffee.png")  // 600x400
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

    @Test func aReducingGapOfOneReducesAsFarAsTheOutput() async throws {
        let log = DecodeLog()
        let (response, expected) = try await load(
            "resize:w=100,h=100,mode=fit,filter=lanczos3", log: log, reducingGap: 1)
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
