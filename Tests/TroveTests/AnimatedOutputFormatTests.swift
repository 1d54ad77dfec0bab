import Foundation
import Testing
import Trove
import TroveTestSupport
import TroveWebP

/// A processed animation with no output format asked keeps its frames: its source's format when an encoder
/// writes it, else WebP when one is registered (a GIF, which nothing here encodes), else a PNG of the first.
@Suite struct AnimatedOutputFormatTests {
    static func response(registry: PluginRegistry, format: ImageFormat? = nil) async throws -> ImageResponse {
        try await withTemporaryDirectory { directory in
            let url = Fixtures.url("gif/animated.gif")
            let transforms = try registry.transformers(forSpec: "resize:w=8,h=8,mode=fit")
            let pipeline = try ImagePipeline(
                registry: registry, configuration: PipelineConfiguration(cacheDirectory: directory))
            return try await pipeline.image(for: ImageRequest(url: url, transforms: transforms, outputFormat: format))
        }
    }

    @Test func aGIFAnimationIsEncodedAsAnAnimatedWebP() async throws {
        var registry = PluginRegistry.standard
        try registry.install(TroveWebPPlugin())
        let response = try await Self.response(registry: registry)
        try #require(response.image.frames.count > 1)
        #expect(response.format == .webp)
        let decoded = try registry.decoder(for: .webp).decode(response.data, limits: .default)
        #expect(decoded.frames.count == response.image.frames.count)
    }

    @Test func withoutAnAnimatingEncoderItIsAPNG() async throws {
        let response = try await Self.response(registry: .standard)
        #expect(response.format == .png)
    }

    @Test func aFormatAskedForWins() async throws {
        var registry = PluginRegistry.standard
        try registry.install(TroveWebPPlugin())
        let response = try await Self.response(registry: registry, format: .png)
        #expect(response.format == .png)
    }
}
