import Foundation
import Synchronization
import Testing
import Trove
import TroveCodec
import TroveCore
import TroveJPEG
import TroveTestSupport

@testable import TroveTransformers

/// A 4000x3000 PNG and JPEG made to 320 px thumbnails through the pipeline: the decoder streams rows into the
/// resize, so neither the full-size nor the reduced image is ever held whole, and the pixels are those of the
/// whole-image route (decode, reduced, to an `Image`, then resize).
@Suite struct RowStreamingPipelineTests {
    /// What the streaming decoder was asked and what the sink it fed saw.
    final class StreamLog: Sendable {
        struct Stream: Sendable {
            var header: RowStreamHeader?
            var rows = 0
            /// Distinct addresses the rows arrived at: 1 means one reused row buffer.
            var rowBuffers = 0
            /// Filtered rows the streaming resize held at most.
            var windowRows = 0
        }
        let streams = Mutex<[Stream]>([])
        /// Calls that return a whole `Image`.
        let wholeDecodes = Mutex(0)
    }

    /// Passes rows on to the pipeline's sink, recording them.
    final class RecordingSink: ImageRowSink {
        let inner: any ImageRowSink
        var stream = StreamLog.Stream()
        var buffers = Set<UnsafePointer<UInt8>>()

        init(_ inner: any ImageRowSink) { self.inner = inner }

        func begin(_ header: RowStreamHeader) throws {
            stream.header = header
            try inner.begin(header)
        }

        func consume(_ row: UnsafePointer<UInt8>) throws {
            stream.rows += 1
            buffers.insert(row)
            try inner.consume(row)
        }
    }

    /// A registry's decoder, recording every call; registered in its place.
    struct RecordingDecoder: RowStreamingImageDecoder {
        let inner: any RowStreamingImageDecoder
        var leastReducingGap: Double { inner.leastReducingGap }
        var reducesByBlocks: Bool { inner.reducesByBlocks }
        let log: StreamLog
        var name: String { inner.name }
        var format: ImageFormat { inner.format }

        func canDecode(_ header: Data) -> Bool { inner.canDecode(header) }
        func info(_ data: Data) throws -> ImageInfo? { try inner.info(data) }

        func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
            log.wholeDecodes.withLock { $0 += 1 }
            return try inner.decode(data, limits: limits)
        }

        func decode(_ data: Data, options: DecodingOptions) throws -> Image {
            log.wholeDecodes.withLock { $0 += 1 }
            return try inner.decode(data, options: options)
        }

        func decode(_ data: Data, options: DecodingOptions, into sink: any ImageRowSink) throws {
            let recorder = RecordingSink(sink)
            defer {
                var stream = recorder.stream
                stream.rowBuffers = recorder.buffers.count
                stream.windowRows = (sink as? StreamingResizer)?.windowRows ?? -1
                log.streams.withLock { $0.append(stream) }
            }
            try inner.decode(data, options: options, into: recorder)
        }
    }

    /// The same decoder without the row-sink capability: today's whole-image route.
    struct WholeImageDecoder: ImageDecoder {
        let inner: any ImageDecoder
        var name: String { inner.name }
        var format: ImageFormat { inner.format }
        func canDecode(_ header: Data) -> Bool { inner.canDecode(header) }
        func info(_ data: Data) throws -> ImageInfo? { try inner.info(data) }
        func decode(_ data: Data, limits: DecodingLimits) throws -> Image { try inner.decode(data, limits: limits) }
        func decode(_ data: Data, options: DecodingOptions) throws -> Image {
            try inner.decode(data, options: options)
        }
    }

    /// 4000x3000 of smooth gradients crossed by fine stripes and a translucent band, so both the scaled
    /// decode and the lanczos filter have detail to work on.
    static let large: Image = {
        let width = 4000, height = 3000
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, initialized in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    buffer[i] = UInt8(x * 255 / (width - 1))
                    buffer[i + 1] = UInt8(y * 255 / (height - 1))
                    buffer[i + 2] = (x / 9 + y / 13) % 2 == 0 ? 40 : 220
                    buffer[i + 3] = y >= 1000 && y < 1200 ? UInt8(x % 256) : 255
                }
            }
            initialized = width * height * 4
        }
        return Image(width: width, height: height, pixels: pixels)
    }()

    struct Case: Sendable, CustomTestStringConvertible {
        let format: String
        let spec: String
        var testDescription: String { "\(format): \(spec)" }
    }

    @Test(arguments: [
        Case(format: "png", spec: "resize:w=320,h=320,mode=fit,filter=lanczos3"),
        Case(format: "jpeg", spec: "resize:w=320,h=320,mode=fit,filter=lanczos3"),
        Case(format: "png", spec: "resize:w=320,h=200,mode=fill,filter=bicubic|grayscale"),
        Case(format: "jpeg", spec: "resize:w=320,h=200,mode=fill,filter=bicubic|grayscale")
    ])
    func aThumbnailNeverHoldsTheWholeImage(_ c: Case) async throws {
        let data: Data
        let plain: any RowStreamingImageDecoder
        if c.format == "png" {
            data = try PNGEncoder().encode(Self.large, options: EncodingOptions(compressionLevel: 1))
            plain = PNGDecoder()
        } else {
            data = try JPEGEncoder().encode(Self.large, options: EncodingOptions(quality: 0.9))
            plain = JPEGDecoder()
        }
        let log = StreamLog()
        var registry = PluginRegistry.standard
        try registry.install(TroveJPEGPlugin())
        try registry.register(decoder: RecordingDecoder(inner: plain, log: log), replacing: true)
        let transforms = try registry.transformers(forSpec: c.spec)

        // Today's route, decoding a reduced `Image` and resizing it, gives the expected pixels.
        let (decoded, rest) = try WholeImageDecoder(inner: plain).decode(data, limits: .default, for: transforms)
        #expect(decoded.width == 1000 && decoded.height == 750, "the whole-image route decodes reduced by 4")
        var expected = decoded
        for transformer in rest { expected = try transformer.transform(expected) }

        let response = try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("large.\(c.format)")
            try data.write(to: file)
            let pipeline = try ImagePipeline(
                registry: registry, configuration: PipelineConfiguration(cacheDirectory: directory))
            return try await pipeline.image(for: ImageRequest(url: file, transforms: transforms))
        }
        #expect(response.image.width == expected.width && response.image.height == expected.height)
        #expect(response.image.pixels == expected.pixels, "the same pixels as the whole-image route")

        let streams = log.streams.withLock { $0 }
        try #require(streams.count == 1)
        let stream = streams[0]
        #expect(log.wholeDecodes.withLock { $0 } == 0, "no call returned a whole image")
        // 4000x3000 is reduced by 4 while decoding (the smallest reduction at least twice 320x240) and arrives
        // as 750 rows of 1000 pixels, each through the same one-row buffer: no 4000x3000 or 1000x750 buffer.
        #expect(stream.header?.width == 1000 && stream.header?.height == 750)
        #expect(stream.rows == 750 && stream.rowBuffers == 1)
        // The resize holds about the filter's support in rows (lanczos3 at a 3.1x shrink: under 21 taps).
        #expect(stream.windowRows > 0 && stream.windowRows <= 24, "window of \(stream.windowRows) rows of 750")
        print(
            "\(c.testDescription): \(stream.rows) rows of \(stream.header?.width ?? 0) via \(stream.rowBuffers) buffer, "
                + "window \(stream.windowRows) rows of \(response.image.width) Float4 pixels")
    }

    /// Records the size of every image `didDecode` is shown.
    final class SizeRecordingDelegate: PipelineDelegate {
        let sizes = Mutex<[PixelSize]>([])
        func didDecode(_ image: Image, for request: ImageRequest) throws -> Image {
            sizes.withLock { $0.append(PixelSize(width: image.width, height: image.height)) }
            return image
        }
    }

    @Test func aDelegateStillSeesTheDecodedImageBeforeTheResize() async throws {
        let delegate = SizeRecordingDelegate()
        let log = StreamLog()
        var registry = PluginRegistry.standard
        try registry.register(decoder: RecordingDecoder(inner: PNGDecoder(), log: log), replacing: true)
        let transforms = try registry.transformers(forSpec: "resize:w=100,h=100,mode=fit,filter=lanczos3")
        let response = try await withTemporaryDirectory { directory in
            var configuration = PipelineConfiguration(cacheDirectory: directory)
            configuration.delegate = delegate
            let pipeline = try ImagePipeline(registry: registry, configuration: configuration)
            return try await pipeline.image(
                for: ImageRequest(url: Fixtures.image("coffee.png"), transforms: transforms))
        }
        // coffee.png is 600x400: the delegate is shown the half-size decode, then the resize makes 100x67.
        #expect(delegate.sizes.withLock { $0 } == [PixelSize(width: 300, height: 200)])
        #expect(response.image.width == 100 && response.image.height == 67)
        #expect(log.streams.withLock { $0.isEmpty } && log.wholeDecodes.withLock { $0 } == 1)
    }
}
