import FixtureServer
import Foundation
import Testing
import Trove

@Suite struct RefreshTests {
    @Test func unchangedResourceIsRevalidatedWith304AndNotDownloadedAgain() async throws {
        let modified = Date(timeIntervalSince1970: 1_790_000_000)
        let badge = try pngData("badge.png")
        try await withServerAndCache(["/r.png": .conditional(badge, contentType: "image/png", lastModified: modified)])
        {
            server, directory in
            let pipeline = try makePipeline(directory)
            let url = server.url("/r.png")
            let first = try await pipeline.image(for: url)
            let before = try #require(await pipeline.diskCache?.entry(forKey: first.cacheKey.raw))
            try await Task.sleep(for: .milliseconds(20))

            var events: [ImageEvent] = []
            for try await event in pipeline.task(for: ImageRequest(url: url, cachePolicy: .refresh)).events {
                if case .progress = event { continue }
                events.append(event)
            }
            guard events.count == 2, case let .cached(cached) = events[0], case let .final(final) = events[1] else {
                Issue.record("expected cached then final, got \(events)"); return
            }
            #expect(cached.source == .memory)
            #expect(final.data == badge && final.image == first.image)
            let log = server.requestLog(for: "/r.png")
            #expect(log.count == 2)
            #expect(log[1].headers["if-none-match"] == FixtureServer.etag(for: badge))
            #expect(log[1].headers["if-modified-since"] == FixtureServer.httpDate(modified))
            // The 304 refreshed the entry's dates and kept its bytes.
            let after = try #require(await pipeline.diskCache?.entry(forKey: first.cacheKey.raw))
            #expect(after.data == badge)
            #expect(after.metadata.created > before.metadata.created)
        }
    }

    @Test func changedResourceReplacesTheEntryAndIsDeliveredSecond() async throws {
        let modified = Date(timeIntervalSince1970: 1_790_000_000)
        let badge = try pngData("badge.png"), tiles = try pngData("tiles.png")
        try await withServerAndCache(["/r.png": .conditional(badge, contentType: "image/png", lastModified: modified)])
        {
            server, directory in
            let url = server.url("/r.png")
            let first = try makePipeline(directory)
            _ = try await first.image(for: url)
            await first.flush()
            server.setRoute("/r.png", .conditional(tiles, contentType: "image/png", lastModified: modified + 60))

            // A fresh pipeline: the cached result comes from disk this time.
            let pipeline = try makePipeline(directory)
            var events: [ImageEvent] = []
            for try await event in pipeline.task(for: ImageRequest(url: url, cachePolicy: .refresh)).events {
                if case .progress = event { continue }
                events.append(event)
            }
            guard events.count == 2, case let .cached(cached) = events[0], case let .final(final) = events[1] else {
                Issue.record("expected cached then final, got \(events)"); return
            }
            #expect(cached.source == .disk && cached.data == badge)
            #expect(final.source == .network && final.data == tiles)
            #expect(final.image.width == 320)
            #expect(try await pipeline.diskCache?.entry(forKey: final.cacheKey.raw)?.data == tiles)
            // image(for:) with refresh returns the final result; memory now holds the new image.
            #expect(try await pipeline.image(for: url).data == tiles)
            #expect(server.requestCount(for: "/r.png") == 2)
        }
    }
}
