import FixtureServer
import Foundation
import Testing
import Trove
import TroveTestSupport

/// One request end to end against a real HTTP server on 127.0.0.1.
@Suite struct EndToEndTests {
    @Test func twentyConcurrentRequestsReachTheOriginOnceThenDiskServesANewPipeline() async throws {
        let png = try Data(contentsOf: Fixtures.images.appendingPathComponent("coffee.png"))
        // A slow route keeps the first fetch in flight while the other 19 arrive.
        try await withServerAndCache([
            "/slow/coffee.png": .delayed(png, contentType: "image/png", delay: .milliseconds(300))
        ]) {
            server, directory in
            let url = server.url("/slow/coffee.png")
            let pipeline = try ImagePipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            let responses = try await withThrowingTaskGroup(of: ImageResponse.self) { group in
                for _ in 0..<20 { group.addTask { try await pipeline.image(for: url) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(server.requestCount(for: "/slow/coffee.png") == 1)
            #expect(responses.count == 20)
            #expect(responses.allSatisfy { $0.image == responses[0].image && $0.data == png })
            #expect(responses[0].image.width == 600 && responses[0].image.height == 400)

            // Disk writes are write-behind: the directory goes to another pipeline once they are done.
            await pipeline.flush()
            let second = try ImagePipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            let fromDisk = try await second.image(for: url)
            #expect(fromDisk.source == .disk)
            #expect(fromDisk.image == responses[0].image)
            #expect(server.requests.count == 1)
        }
    }

    @Test func transformedImageComesFromDiskRawEntryWithoutANewRequest() async throws {
        try await withServerAndCache { server, directory in
            let registry = PluginRegistry.standard
            let transforms = try registry.transformers(forSpec: "resize:w=96,h=64,mode=stretch,filter=bilinear")
            let request = ImageRequest(url: server.url("/images/chelsea.png"), transforms: transforms)
            let first = try await ImagePipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
                .image(for: request)
            let second = try await ImagePipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
                .image(for: request)
            #expect(first.source == .network && second.source == .disk)
            #expect(first.image == second.image)
            #expect(second.image.width == 96 && second.image.height == 64)
            #expect(server.requests == ["/images/chelsea.png"])
        }
    }

    @Test func missingImageIsA404AndLeavesNoEntry() async throws {
        try await withServerAndCache { server, directory in
            let pipeline = try ImagePipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            let url = server.url("/images/nope.png")
            await #expect(throws: TroveError.httpStatus(404, url: url.absoluteString)) {
                _ = try await pipeline.image(for: url)
            }
            #expect(await pipeline.diskCache?.stats().entries == 0)
            #expect(pipeline.memoryCache.stats.count == 0)
        }
    }
}
