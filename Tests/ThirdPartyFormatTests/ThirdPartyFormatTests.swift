import Foundation
import Testing
import Trove
import TroveCodec
import TroveTestSupport

/// A format none of Trove's modules knows works end to end through the registry alone.
@Suite struct ThirdPartyFormatTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// 3x1: red (QOI_OP_RGB), red again (a run of 1), then a blue-ish pixel one step away in each channel
    /// (QOI_OP_DIFF), bytes written by hand from the specification.
    static let handWritten: [UInt8] =
        Array("qoif".utf8) + [0, 0, 0, 3, 0, 0, 0, 1, 4, 0]
        + [0xFE, 200, 10, 20]  // RGB
        + [0xC0]  // run of 1
        + [0x40 | 3 << 4 | 1 << 2 | 2]  // diff: r +1, g -1, b 0
        + [0, 0, 0, 0, 0, 0, 0, 1]

    @Test func bytesWrittenFromTheSpecificationDecodeToTheirPixels() throws {
        let image = try QOIDecoder().decode(Data(Self.handWritten), limits: .default)
        #expect(image.width == 3 && image.height == 1 && image.sourceFormat == .qoi)
        #expect(image.pixels == [200, 10, 20, 255, 200, 10, 20, 255, 201, 9, 20, 255])
    }

    @Test func anUnregisteredFormatIsNotRecognisedAndTheErrorSaysSo() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("x.qoi")
            try Data(Self.handWritten).write(to: file)
            #expect(PluginRegistry.standard.decoder(for: Data(Self.handWritten)) == nil)
            let pipeline = try ImagePipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            let error = await #expect(throws: TroveError.self) { try await pipeline.image(for: file) }
            #expect(error?.description.contains("not an image Trove can decode (first bytes: 71 6f 69 66") == true)
        }
    }

    @Test func theRegistryRecognisesDecodesAndEncodesIt() throws {
        var registry = PluginRegistry.standard
        try registry.install(QOIPlugin())
        #expect(registry.decoder(for: Data(Self.handWritten))?.name == "qoi")
        #expect(registry.format(of: Data(Self.handWritten)) == .qoi)
        #expect(registry.encodableFormats.contains(.qoi))
        #expect(registry.routing.formats["qoi"] == .init(decoder: "qoi", encoder: "qoi"))

        // Every pixel of a real image survives encoding and decoding through what the registry picks.
        let badge = try PNGDecoder().decode(
            try Data(contentsOf: Self.fixtures.appendingPathComponent("images/badge.png")), limits: .default)
        let encoded = try registry.encoder(for: .qoi).encode(badge, options: EncodingOptions())
        #expect(encoded.starts(with: "qoif".utf8))
        let decoded = try #require(registry.decoder(for: encoded)).decode(encoded, limits: .default)
        #expect(decoded.width == badge.width && decoded.height == badge.height)
        #expect(decoded.pixels == badge.convertedToRGBA8().pixels)
    }

    @Test func aPipelineReadsItAndWritesItAsTheOutputFormat() async throws {
        try await withTemporaryDirectory { directory in
            var registry = PluginRegistry.standard
            try registry.install(QOIPlugin())
            let badge = try PNGDecoder().decode(
                try Data(contentsOf: Self.fixtures.appendingPathComponent("images/badge.png")), limits: .default)
            let source = directory.appendingPathComponent("badge.qoi")
            try QOIEncoder().encode(badge, options: EncodingOptions()).write(to: source)

            let pipeline = try ImagePipeline(
                registry: registry,
                configuration: PipelineConfiguration(cacheDirectory: directory))
            let request = ImageRequest(
                url: source, transforms: try registry.transformers(forSpec: "flip:axis=h"),
                outputFormat: .qoi)
            let response = try await pipeline.image(for: request)
            #expect(response.image.sourceFormat == .qoi)
            #expect(response.data.starts(with: "qoif".utf8))
            let back = try QOIDecoder().decode(response.data, limits: .default)
            // Flipped horizontally: the first pixel of each row is the source's last.
            let rowBytes = badge.width * 4
            let source0 = Array(badge.convertedToRGBA8().pixels[(rowBytes - 4)..<rowBytes])
            #expect(Array(back.pixels[0..<4]) == source0)
            #expect(back.pixels == response.image.pixels)
        }
    }

    @Test func truncatedDataIsAnErrorNamingTheFormat() throws {
        let cut = Data(Self.handWritten.prefix(16) + [0, 0, 0, 0, 0, 0, 0, 1])
        let error = #expect(throws: TroveError.self) { try QOIDecoder().decode(cut, limits: .default) }
        #expect(error?.description.hasPrefix("could not decode qoi:") == true)
    }
}
