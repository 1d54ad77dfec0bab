import Foundation
import Synchronization
import Testing
import Trove
import TroveCore
import TroveJPEG
import TroveTestSupport

/// A phone photo stored landscape (640x480) with EXIF orientation 6, displayed portrait (480x640), made into a
/// thumbnail through a fit box: the box applies to the portrait picture, the JPEG decoder reduces while it
/// decodes (shrink-on-load), and its rows stream into the resize without the image ever being held whole.
@Suite struct PortraitShrinkOnLoadTests {
    /// The registry's JPEG decoder, counting what it was asked.
    final class CountingDecoder: RowStreamingImageDecoder {
        let inner = JPEGDecoder()
        let streamedSizes = Mutex<[PixelSize]>([])
        let wholeDecodes = Mutex(0)
        var name: String { inner.name }
        var format: ImageFormat { inner.format }

        func canDecode(_ header: Data) -> Bool { inner.canDecode(header) }
        func info(_ data: Data) throws -> ImageInfo? { try inner.info(data) }
        func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
            wholeDecodes.withLock { $0 += 1 }
            return try inner.decode(data, limits: limits)
        }
        func decode(_ data: Data, options: DecodingOptions) throws -> Image {
            wholeDecodes.withLock { $0 += 1 }
            return try inner.decode(data, options: options)
        }
        func decode(_ data: Data, options: DecodingOptions, into sink: any ImageRowSink) throws {
            try inner.decode(
                data, options: options,
                into: HeaderRecorder(sink) { header in
                    self.streamedSizes.withLock { $0.append(PixelSize(width: header.width, height: header.height)) }
                })
        }
    }

    /// Passes rows on, telling `seen` the header first.
    final class HeaderRecorder: ImageRowSink {
        let next: any ImageRowSink
        let seen: (RowStreamHeader) -> Void
        init(_ next: any ImageRowSink, seen: @escaping (RowStreamHeader) -> Void) {
            self.next = next
            self.seen = seen
        }
        func begin(_ header: RowStreamHeader) throws {
            seen(header)
            try next.begin(header)
        }
        func consume(_ row: UnsafePointer<UInt8>) throws { try next.consume(row) }
    }

    @Test(arguments: ["portrait-o6.jpg", "portrait-o1.jpg"])
    func aFitBoxGivesAPortraitThumbnailFromAReducedStreamedDecode(_ name: String) async throws {
        let decoder = CountingDecoder()
        var registry = try DisplayFixtures.registry()
        try registry.register(decoder: decoder, replacing: true)
        let pipeline = try ImagePipeline(registry: registry, configuration: .memoryOnly)
        let box = ResizeTransformer(width: 120, height: 120, mode: .fit, filter: .lanczos3)
        let response = try await pipeline.image(
            for: ImageRequest(url: DisplayFixtures.url(name), transforms: [box], outputFormat: .png))
        #expect(response.image.width == 90 && response.image.height == 120)
        // Reduced to 3/8 while decoding, the smallest M/8 still twice the 90x120 result on the displayed picture:
        // 240x180 stored for the landscape-stored file, 180x240 for the upright one.
        let streamed = decoder.streamedSizes.withLock { $0 }
        #expect(streamed.count == 1 && decoder.wholeDecodes.withLock { $0 } == 0)
        #expect(streamed.first.map { $0.width * $0.height } == 240 * 180)
        let reference = try box.transform(try DisplayFixtures.reference("portrait-o6-ref.png").convertedToRGBA8())
        #expect(psnr(response.image, reference) > 35, "\(name)")
    }
}
