import FixtureServer
import Foundation
import Synchronization
import Testing
import Trove
import TroveCodec
import TroveTestSupport

/// `PipelineConfiguration.decodeMemoryBudget` through a pipeline: coalesced requests share one
/// reservation, and a source over the whole budget is refused before it is decoded.
@Suite struct DecodeMemoryBudgetPipelineTests {
    /// Passes decoding on to PNG, noting how many decodes ran and the budget's reserved bytes during each.
    final class ObservingDecoder: ImageDecoder, Sendable {
        let inner = PNGDecoder()
        var leastReducingGap: Double { inner.leastReducingGap }
        var reducesByBlocks: Bool { inner.reducesByBlocks }
        let pipeline = Mutex<ImagePipeline?>(nil)
        let reservedDuringDecodes = Mutex<[Int]>([])
        var name: String { inner.name }
        var format: ImageFormat { inner.format }
        func canDecode(_ header: Data) -> Bool { inner.canDecode(header) }
        func info(_ data: Data) throws -> ImageInfo? { try inner.info(data) }
        func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
            let reserved = pipeline.withLock { $0?.decodeBudget?.snapshot.reserved } ?? -1
            reservedDuringDecodes.withLock { $0.append(reserved) }
            return try inner.decode(data, limits: limits)
        }
    }

    @Test func coalescedRequestsShareOneReservation() async throws {
        let png = try pngData("tiles.png")
        let gate = FixtureGate()
        try await withServerAndCache(["/t.png": .gated(png, contentType: "image/png", gate: gate)]) {
            server, directory in
            let decoder = ObservingDecoder()
            var registry = PluginRegistry.standard
            try registry.register(decoder: decoder, replacing: true)
            let info = try #require(try decoder.info(png))
            let transforms: [any ImageTransformer] = [GrayscaleTransformer()]
            let footprint = DecodeFootprint(
                info: info, transforms: transforms, streams: false, reducingGap: 2, limits: .default)
            var configuration = PipelineConfiguration(cacheDirectory: directory)
            configuration.retryPolicy = .none
            // Room for exactly one decode, and no queue: a second reservation of its own would be refused.
            configuration.decodeMemoryBudget = footprint.bytes
            configuration.decodeMemoryQueueLimit = 0
            let pipeline = try ImagePipeline(registry: registry, configuration: configuration)
            decoder.pipeline.withLock { $0 = pipeline }
            let request = ImageRequest(url: server.url("/t.png"), transforms: transforms)
            async let first = pipeline.image(for: request)
            async let second = pipeline.image(for: request)
            #expect(await eventually { gate.arrivals == 1 })
            gate.open()
            let (a, b) = try await (first, second)
            #expect(a.image.width == 320 && b.image.width == 320)
            #expect(decoder.reservedDuringDecodes.withLock { $0 } == [footprint.bytes])
            #expect(
                pipeline.decodeBudget?.snapshot
                    == .init(
                        capacity: footprint.bytes, reserved: 0, waiting: 0, refusals: [:]))
        }
    }

    @Test func aSourceOverTheBudgetIsRefusedBeforeDecoding() async throws {
        let png = try pngData("tiles.png")
        try await withServerAndCache(["/t.png": .file(png, contentType: "image/png")]) { server, directory in
            let decoder = ObservingDecoder()
            var registry = PluginRegistry.standard
            try registry.register(decoder: decoder, replacing: true)
            var configuration = PipelineConfiguration(cacheDirectory: directory)
            configuration.decodeMemoryBudget = 1000
            let pipeline = try ImagePipeline(registry: registry, configuration: configuration)
            let error = await #expect(throws: TroveError.self) {
                _ = try await pipeline.image(for: server.url("/t.png"), transforms: [GrayscaleTransformer()])
            }
            guard case let .tooLargeToDecode(needed, limit, setting)? = error else {
                Issue.record("expected tooLargeToDecode, got \(String(describing: error))")
                return
            }
            #expect(needed == 320 * 200 * 4 * 2 + 320 * 200 && limit == 1000 && setting == "decodeMemoryBudget")
            #expect(decoder.reservedDuringDecodes.withLock { $0 }.isEmpty)
            // Not remembered as a damaged source: with a budget that fits, the same URL decodes.
            var roomy = configuration
            roomy.decodeMemoryBudget = 64 << 20
            let second = try ImagePipeline(registry: registry, configuration: roomy)
            #expect(
                try await second.image(for: server.url("/t.png"), transforms: [GrayscaleTransformer()]).image.width
                    == 320)
        }
    }
}
