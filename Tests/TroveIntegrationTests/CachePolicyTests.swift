import FixtureServer
import Foundation
import Testing
import Trove

@Suite struct CachePolicyTests {
    @Test func cacheOnlyNeverOpensAConnection() async throws {
        try await withServerAndCache { server, directory in
            let pipeline = try makePipeline(directory)
            let url = server.url("/images/coffee.png")
            let request = ImageRequest(url: url, cachePolicy: .cacheOnly)
            await #expect(throws: TroveError.notCached(key: pipeline.cacheKey(for: request).raw)) {
                _ = try await pipeline.image(for: request)
            }
            #expect(server.requests.isEmpty)

            _ = try await pipeline.image(for: url)
            #expect(server.requests.count == 1)
            let offline = try makePipeline(directory)
            let fromDisk = try await offline.image(for: request)
            #expect(fromDisk.source == .disk && fromDisk.image.width == 600)
            #expect(server.requests.count == 1)
        }
    }

    @Test func reloadFetchesAgainAndOverwrites() async throws {
        try await withServerAndCache([
            "/v.png": .sequence([
                .file(try pngData("badge.png"), contentType: "image/png"),
                .file(try pngData("tiles.png"), contentType: "image/png")
            ])
        ]) {
            server, directory in
            let pipeline = try makePipeline(directory)
            let url = server.url("/v.png")
            #expect(try await pipeline.image(for: url).image.width == 256)
            let reloaded = try await pipeline.image(for: ImageRequest(url: url, cachePolicy: .reloadIgnoringCache))
            #expect(reloaded.source == .network && reloaded.image.width == 320)
            await pipeline.flush()
            #expect(try await makePipeline(directory).image(for: url).image.width == 320)
        }
    }

    @Test func progressEventsArriveBeforeTheFinalResult() async throws {
        let coffee = try pngData("coffee.png")
        try await withServerAndCache(["/p.png": .slowBody(coffee, chunkSize: 64 * 1024, interval: .milliseconds(5))]) {
            server, directory in
            let pipeline = try makePipeline(directory)
            var progress: [FetchProgress] = []
            var final: ImageResponse?
            for try await event in pipeline.task(for: ImageRequest(url: server.url("/p.png"))).events {
                switch event {
                case let .progress(update): progress.append(update)
                case .cached: Issue.record("no cached event without refresh")
                case .preview: Issue.record("no previews unless the request asks for them")
                case let .final(response): final = response
                }
            }
            #expect(final?.image.width == 600)
            #expect(progress.count >= 2)
            #expect(progress.last == FetchProgress(received: Int64(coffee.count), expected: Int64(coffee.count)))
            #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.received < $1.received })
        }
    }
}
