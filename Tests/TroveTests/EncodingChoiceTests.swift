import Foundation
import Synchronization
import Testing
import Trove
import TroveCodec
import TroveTestSupport

/// Which format and settings a processed result is encoded with: the request's own, else the source's
/// format when asked (as an image proxy does), else PNG.
@Suite struct EncodingChoiceTests {
    /// Stands in for a GIF encoder, which the standard set lacks, and remembers the options it was given.
    final class RecordingGIFEncoder: ImageEncoder {
        let name = "recording-gif"
        let format = ImageFormat.gif
        let options = Mutex<[EncodingOptions]>([])

        func encode(_ image: Image, options: EncodingOptions) throws -> Data {
            self.options.withLock { $0.append(options) }
            return Data("GIF89a-\(image.width)x\(image.height)".utf8)
        }
    }

    let gif = Fixtures.url("gif/still.gif")
    let shrink = ResizeTransformer(width: 4, height: 4, mode: .fit)

    func response(_ request: ImageRequest, registry: PluginRegistry = .standard) async throws -> ImageResponse {
        try await withTemporaryDirectory { directory in
            let pipeline = try ImagePipeline(
                registry: registry, configuration: PipelineConfiguration(cacheDirectory: directory))
            return try await pipeline.image(for: request)
        }
    }

    @Test func sourceFormatIsUsedWhenAnEncoderForItIsRegistered() async throws {
        var registry = PluginRegistry.standard
        let encoder = RecordingGIFEncoder()
        try registry.register(encoder: encoder)
        let request = ImageRequest(
            url: gif, transforms: [shrink], options: .encodesInSourceFormat,
            encodingOptions: EncodingOptions(quality: 0.4))
        let result = try await response(request, registry: registry)
        #expect(result.format == .gif)
        #expect(String(decoding: result.data, as: UTF8.self) == "GIF89a-\(result.image.width)x\(result.image.height)")
        #expect(encoder.options.withLock { $0 } == [EncodingOptions(quality: 0.4)])
    }

    @Test func withoutAnEncoderForTheSourceFormatTheResultIsPNG() async throws {
        let result = try await response(ImageRequest(url: gif, transforms: [shrink], options: .encodesInSourceFormat))
        #expect(result.format == .png)
        #expect(result.data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        // An explicit format wins over the source's.
        var registry = PluginRegistry.standard
        try registry.register(encoder: RecordingGIFEncoder())
        let explicit = try await response(
            ImageRequest(
                url: gif, transforms: [shrink], options: .encodesInSourceFormat,
                outputFormat: .png), registry: registry)
        #expect(explicit.format == .png && explicit.data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    /// Encoder settings alone ask for an encoded result: the original bytes are not handed back as if they
    /// were encoded with them.
    @Test func encodingOptionsWithoutTransformsReencode() async throws {
        let url = Fixtures.image("coffee.png")
        let original = try Data(contentsOf: url)
        let untouched = try await response(ImageRequest(url: url))
        #expect(untouched.data == original && untouched.format == .png)
        let stored = try await response(ImageRequest(url: url, encodingOptions: EncodingOptions(compressionLevel: 0)))
        #expect(stored.format == .png && stored.data != original)
        // Level 0 stores deflate blocks uncompressed: at least the raw rows of a 600x400 opaque (RGB) image.
        #expect(stored.data.count > 600 * 400 * 3)
        let decoded = try PNGDecoder().decode(stored.data, limits: .default)
        #expect(decoded.pixels == untouched.image.pixels)
    }
}
