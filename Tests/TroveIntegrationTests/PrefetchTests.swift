import FixtureServer
import Foundation
import Synchronization
import Testing
import Trove
import TroveCodec

/// Counts the decodes it does, and otherwise decodes PNG as the built-in decoder does.
private final class CountingPNGDecoder: ImageDecoder {
    let name = "counting-png"
    let format = ImageFormat.png
    let decodes = Atomic<Int>(0)
    func canDecode(_ header: Data) -> Bool { PNGDecoder().canDecode(header) }
    func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
        decodes.add(1, ordering: .relaxed)
        return try PNGDecoder().decode(data, limits: limits)
    }
}

@Suite struct PrefetchTests {
    static let names = ["badge.png", "tiles.png", "chelsea.png", "coffee.png"]

    @Test func prefetchingStoresBytesWithoutDecodingAndASecondRunReadsOnlyTheIndex() async throws {
        try await withServerAndCache { server, dir in
            let counting = CountingPNGDecoder()
            var registry = PluginRegistry.standard
            try registry.register(decoder: counting)  // registered last: it is the PNG decoder now
            var configuration = PipelineConfiguration(cacheDirectory: dir)
            configuration.retryPolicy = .none
            let urls = Self.names.map { server.url("/images/\($0)") }

            let pipeline = try ImagePipeline(registry: registry, configuration: configuration)
            let cold = await Prefetcher(pipeline: pipeline).prefetch(urls)
            #expect(cold.fetched == 4 && cold.cached == 0 && cold.failed == 0)
            #expect(counting.decodes.load(ordering: .relaxed) == 0)
            #expect(pipeline.memoryCache.stats.count == 0)
            let expectedBytes = try Self.names.reduce(0) { $0 + (try pngData($1)).count }
            #expect(cold.bytes == expectedBytes)

            // A new process's pipeline: every URL is answered from the index, no payload read, no request.
            let fresh = try ImagePipeline(registry: registry, configuration: configuration)
            let warm = await Prefetcher(pipeline: fresh).prefetch(urls)
            #expect(warm.fetched == 0 && warm.cached == 4)
            #expect(await fresh.diskCache?.stats().hits == 0)
            #expect(server.requests.count == 4)

            // The memory destination decodes, once per image, into the memory cache.
            let shown = try ImagePipeline(registry: registry, configuration: configuration)
            _ = await Prefetcher(pipeline: shown, destination: .memory).prefetch(urls)
            #expect(counting.decodes.load(ordering: .relaxed) == 4)
            #expect(shown.memoryCache.stats.count == 4)
        }
    }

    @Test func anImagePrefetchRefusesBytesThatAreNoImageAndADataPrefetchTakesThem() async throws {
        try await withServerAndCache([
            "/users.json": .file(Data("{\"users\": []}".utf8), contentType: "application/json")
        ]) {
            server, dir in
            let url = server.url("/users.json")
            let images = await Prefetcher(pipeline: try makePipeline(dir)).prefetch([url])
            #expect(images.failed == 1 && images.failures.first?.error.contains("not an image") == true)
            var configuration = PipelineConfiguration(cacheDirectory: dir)
            configuration.retryPolicy = .none
            let data = try DataPipeline(configuration: configuration)
            let summary = await Prefetcher(pipeline: data).prefetch([url])
            #expect(summary.fetched == 1 && summary.failed == 0)
            #expect(
                try await data.diskCache?.data(forKey: DataRequest(url: url).cacheKey) == Data("{\"users\": []}".utf8))
        }
    }
}
