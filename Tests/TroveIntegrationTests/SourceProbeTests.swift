import FixtureServer
import Foundation
import Synchronization
import Testing
import Trove
import TroveCodec
import TroveTestSupport
import TroveTransformers

/// Counts how often the pipeline sniffs bytes for it and reads their header; otherwise the built-in PNG decoder.
private final class ProbeCountingDecoder: ImageDecoder {
    let name = "probe-counting-png"
    let format = ImageFormat.png
    let sniffs = Atomic<Int>(0)
    let headerReads = Atomic<Int>(0)

    func canDecode(_ header: Data) -> Bool {
        sniffs.add(1, ordering: .relaxed)
        return PNGDecoder().canDecode(header)
    }

    func info(_ data: Data) throws -> ImageInfo? {
        headerReads.add(1, ordering: .relaxed)
        return try PNGDecoder().info(data)
    }

    func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
        try PNGDecoder().decode(data, limits: limits)
    }

    func counts() -> (sniffs: Int, headerReads: Int) {
        (sniffs.load(ordering: .relaxed), headerReads.load(ordering: .relaxed))
    }

    func reset() {
        sniffs.store(0, ordering: .relaxed)
        headerReads.store(0, ordering: .relaxed)
    }
}

/// A source is probed once per request (issue 38): its decoder is found once (by the fetch's check of the
/// bytes when they come from the network) and its header read once, then carried to the decode memory budget,
/// the choice of threads and the decode.
@Suite struct SourceProbeTests {
    @Test func aFetchedSourceIsSniffedOnceAndItsHeaderReadOnce() async throws {
        try await withServerAndCache { server, dir in
            let counting = ProbeCountingDecoder()
            var registry = PluginRegistry.standard
            try registry.register(decoder: counting)  // registered last: asked first, and it claims PNG
            var configuration = PipelineConfiguration(cacheDirectory: dir)
            configuration.retryPolicy = .none
            // A budget makes the pipeline work out the decode's footprint from the header too.
            configuration.decodeMemoryBudget = 256 << 20
            let pipeline = try ImagePipeline(registry: registry, configuration: configuration)
            let url = server.url("/images/chelsea.png")

            let fetched = try await pipeline.image(
                for: ImageRequest(url: url, transforms: [ResizeTransformer(width: 40, height: 40)]))
            #expect(fetched.source == .network && fetched.image.width == 40)
            #expect(counting.counts() == (1, 1))

            // The original from disk, for another size: sniffed once by the decode itself, header read once.
            counting.reset()
            let fromDisk = try await pipeline.image(
                for: ImageRequest(url: url, transforms: [ResizeTransformer(width: 20, height: 20)]))
            #expect(fromDisk.image.width == 20)
            #expect(counting.counts() == (1, 1))
            #expect(server.requests.count == 1)
        }
    }
}
