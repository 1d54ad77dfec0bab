import FixtureServer
import Foundation
import Testing
import Trove

/// `configuration.cacheKeyRule` against a real origin: URLs that differ only in a dropped parameter share
/// one entry in memory and on disk, the origin still gets the URL as given, and forgetting any of them
/// forgets the one entry.
@Suite struct CacheKeyRuleTests {
    @Test func signedURLsShareOneEntryInMemoryAndOnDisk() async throws {
        let badge = try pngData("badge.png")
        try await withServerAndCache(["/badge.png": .file(badge, contentType: "image/png")]) { server, directory in
            func dropsSignature(_ configuration: inout PipelineConfiguration) {
                configuration.cacheKeyRule = CacheKeyRule(droppedQueryParameters: ["sig", "exp"])
            }
            let pipeline = try makePipeline(directory, dropsSignature)
            let first = server.url("/badge.png?v=2&sig=aaa&exp=100")
            let second = server.url("/badge.png?v=2&sig=bbb&exp=200")

            #expect(try await pipeline.image(for: first).source == .network)
            #expect(try await pipeline.image(for: second).source == .memory)
            // The origin saw the signed URL, once.
            #expect(server.requestCount(for: "/badge.png") == 1)
            #expect(server.requestLog(for: "/badge.png").first?.query == "v=2&sig=aaa&exp=100")
            // One disk entry, keyed without the signature; `v` is kept.
            await pipeline.flush()
            #expect(try await pipeline.diskCache?.keys() == [server.url("/badge.png?v=2").absoluteString])

            // A new process on the same directory: a third signature comes from disk.
            let later = try makePipeline(directory, dropsSignature)
            let third = try await later.image(for: server.url("/badge.png?sig=ccc&v=2"))
            #expect(third.source == .disk && third.data == badge)
            // A transformed request under another signature finds the same original on disk.
            let small = ImageRequest(
                url: server.url("/badge.png?v=2&sig=ddd"),
                transforms: try PluginRegistry.standard.transformers(forSpec: "resize:w=8,h=8,mode=stretch"))
            #expect(try await later.image(for: small).image.width == 8)
            #expect(server.requestCount(for: "/badge.png") == 1)

            // Without the rule each signature is its own entry.
            let plain = try makePipeline(directory)
            #expect(try await plain.image(for: server.url("/badge.png?v=2&sig=eee")).source == .network)
            #expect(server.requestCount(for: "/badge.png") == 2)

            // Forgetting under any signature forgets the shared original and the variant made from it.
            let report = await later.forget(url: server.url("/badge.png?v=2&sig=zzz"))
            #expect(report.disk == 2 && report.memory == 2)
            #expect(try await later.image(for: second).source == .network)
            #expect(server.requestCount(for: "/badge.png") == 3)
        }
    }

    @Test func dataRequestsAndPrefetchesUseTheRuleToo() async throws {
        let json = Data("{\"ok\": true}".utf8)
        try await withServerAndCache(["/feed.json": .file(json, contentType: "application/json")]) {
            server, directory in
            var configuration = PipelineConfiguration(cacheDirectory: directory)
            configuration.cacheKeyRule = CacheKeyRule(droppedQueryParameters: ["token"])
            configuration.retryPolicy = .none
            let pipeline = try DataPipeline(configuration: configuration)

            let warmed = await Prefetcher(pipeline: pipeline).prefetch([server.url("/feed.json?token=1")])
            #expect(warmed.fetched == 1)
            let response = try await pipeline.data(for: server.url("/feed.json?token=2"))
            #expect(response.source == .disk && response.data == json)
            #expect(response.cacheKey == server.url("/feed.json").absoluteString)
            #expect(try await pipeline.data(for: server.url("/feed.json?token=3")).source == .memory)
            #expect(server.requestCount(for: "/feed.json") == 1)
        }
    }
}
