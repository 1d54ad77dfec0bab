import FixtureServer
import Foundation
import MetricsTestKit
import Testing
import Trove
import TroveCore
import TroveJPEG
import TroveTestSupport

/// `ImageRequest.Options.needsOnlyData`, which `trove serve` sets: a result made from YCbCr planes skips the RGBA
/// image its response would carry, and gives the same bytes. A caller that wants pixels never gets such an
/// empty image, neither by joining the bytes-only caller's work nor from memory.
@Suite struct BytesOnlyRequestTests {
    static let spec = "resize:w=300,h=300,mode=fit"

    static func pipeline(_ directory: URL, metrics: TestMetrics) throws -> (ImagePipeline, PluginRegistry) {
        var registry = PluginRegistry.standard
        try registry.install(TroveJPEGPlugin())
        var configuration = PipelineConfiguration(cacheDirectory: directory)
        configuration.metricsFactory = metrics
        configuration.retryPolicy = .none
        return (try ImagePipeline(registry: registry, configuration: configuration), registry)
    }

    static func request(_ url: URL, registry: PluginRegistry, bytesOnly: Bool) throws -> ImageRequest {
        var request = ImageRequest(
            url: url, transforms: try registry.transformers(forSpec: spec),
            options: bytesOnly ? [.needsOnlyData] : [])
        request.outputFormat = .jpeg
        return request
    }

    /// Both callers ask at once: they share the one fetch, each gets its own result (the bytes-only one with an
    /// empty image, the other with the image at the output's size), and the bytes are the same.
    @Test func aCallerThatWantsPixelsNeverJoinsOneThatReadsOnlyBytes() async throws {
        let gate = FixtureGate()
        let source = try Data(contentsOf: Fixtures.url("planar/coffee-420.jpg"))
        try await withServerAndCache(["/coffee.jpg": .gated(source, contentType: "image/jpeg", gate: gate)]) {
            server, directory in
            let metrics = TestMetrics()
            let (pipeline, registry) = try Self.pipeline(directory, metrics: metrics)
            let url = server.url("/coffee.jpg")
            let bytesOnly = Task {
                try await pipeline.image(for: Self.request(url, registry: registry, bytesOnly: true))
            }
            await gate.waitForArrivals(1)
            let withPixels = Task {
                try await pipeline.image(for: Self.request(url, registry: registry, bytesOnly: false))
            }
            // The second caller waits on the first one's fetch before the gate opens.
            #expect(await eventually { metrics.total("trove_coalesced_joins_total") == 1 })
            gate.open()
            let bytes = try await bytesOnly.value, pixels = try await withPixels.value

            #expect(server.requestCount(for: "/coffee.jpg") == 1)
            #expect(metrics.total("trove_results_processed_total") == 2)
            #expect(metrics.total("trove_results_planar_total") == 2)
            #expect(bytes.data == pixels.data && bytes.format == .jpeg)
            #expect(bytes.image.width == 0 && bytes.image.height == 0 && bytes.image.pixels.isEmpty)
            let decoded = try JPEGDecoder().decode(pixels.data, limits: .default)
            #expect(pixels.image.width == decoded.width && pixels.image.height == decoded.height)
            #expect(pixels.image.width == 300 && pixels.image.pixels.count == 300 * pixels.image.height * 4)
        }
    }

    /// Memory never keeps a bytes-only response: a later caller that wants pixels gets them (from the result on
    /// disk, decoded), and only then does memory hold the result.
    @Test func aBytesOnlyResponseIsNotKeptInMemory() async throws {
        let source = try Data(contentsOf: Fixtures.url("planar/coffee-420.jpg"))
        try await withServerAndCache(["/coffee.jpg": .file(source, contentType: "image/jpeg")]) { server, directory in
            let metrics = TestMetrics()
            let (pipeline, registry) = try Self.pipeline(directory, metrics: metrics)
            let url = server.url("/coffee.jpg")
            let bytes = try await pipeline.image(for: Self.request(url, registry: registry, bytesOnly: true))
            #expect(bytes.image.pixels.isEmpty && metrics.total("trove_results_planar_total") == 1)
            #expect(pipeline.memoryCache.value(forKey: bytes.cacheKey.processed) == nil)

            let pixels = try await pipeline.image(for: Self.request(url, registry: registry, bytesOnly: false))
            #expect(pixels.source == .disk && pixels.data == bytes.data)
            #expect(
                pixels.image.width > 0 && pixels.image.pixels.count == pixels.image.bytesPerRow * pixels.image.height)
            let kept = try #require(pipeline.memoryCache.value(forKey: bytes.cacheKey.processed))
            #expect(kept.image.width == pixels.image.width)
        }
    }
}
