import FixtureServer
import Foundation
import MetricsTestKit
import Testing
import Trove
import TroveTestSupport

/// Cache-Control, Expires and stale-if-error, through a real HTTP server on loopback.
@Suite struct HTTPFreshnessTests {
    static let modified = Date(timeIntervalSince1970: 1_790_000_000)

    /// A revalidatable PNG (ETag, Last-Modified, 304 on a match) with these caching headers added.
    static func resource(_ headers: [String: String]) throws -> FixtureServer.Route {
        .withHeaders(headers, .conditional(try pngData("badge.png"), contentType: "image/png", lastModified: modified))
    }

    @Test func aFreshResponseIsServedWithoutAskingTheOrigin() async throws {
        try await withServerAndCache(["/r.png": try Self.resource(["Cache-Control": "max-age=3600"])]) { server, dir in
            let url = server.url("/r.png")
            let first = try makePipeline(dir)
            _ = try await first.image(for: url)
            await first.flush()
            // A new pipeline (empty memory) on the same disk: fresh, so no request at all.
            let second = try await makePipeline(dir).image(for: url)
            #expect(second.source == .disk && !second.isStale)
            #expect(server.requestCount(for: "/r.png") == 1)
            let entry = try #require(await makePipeline(dir).diskCache?.entry(forKey: second.cacheKey.raw))
            let lifetime = try #require(entry.metadata.expires).timeIntervalSince(entry.metadata.created)
            #expect(abs(lifetime - 3600) < 5)
        }
    }

    @Test func aStaleResponseIsRevalidatedAnd304KeepsTheEntry() async throws {
        try await withServerAndCache(["/r.png": try Self.resource(["Cache-Control": "max-age=0"])]) { server, dir in
            let url = server.url("/r.png")
            let pipeline = try makePipeline(dir)
            let first = try await pipeline.image(for: url)
            // Stale at once: not kept in memory, and the next use asks the origin with its validators.
            let second = try await pipeline.image(for: url)
            let log = server.requestLog(for: "/r.png")
            #expect(log.count == 2)
            #expect(log[1].header("if-none-match") == FixtureServer.etag(for: try pngData("badge.png")))
            #expect(second.source == .disk && second.image == first.image && !second.isStale)
            #expect(try await pipeline.diskCache?.entry(forKey: first.cacheKey.raw, includingStale: true) != nil)
        }
    }

    @Test func noStoreIsDeliveredAndKeptNowhere() async throws {
        try await withServerAndCache(["/r.png": try Self.resource(["Cache-Control": "no-store"])]) { server, dir in
            let url = server.url("/r.png")
            let pipeline = try makePipeline(dir)
            let first = try await pipeline.image(for: url)
            #expect(first.image.width > 0 && first.source == .network)
            #expect(try await pipeline.diskCache?.entry(forKey: first.cacheKey.raw, includingStale: true) == nil)
            #expect(pipeline.memoryCache.value(forKey: first.cacheKey.processed) == nil)
            _ = try await pipeline.image(for: url)
            #expect(server.requestCount(for: "/r.png") == 2)
        }
    }

    @Test func aNoStoreAnswerToARevalidationRemovesTheOlderCopy() async throws {
        let tiles = try pngData("tiles.png")
        try await withServerAndCache([
            "/r.png": .sequence([
                try Self.resource(["Cache-Control": "max-age=0"]),
                .withHeaders(["Cache-Control": "no-store"], .file(tiles, contentType: "image/png"))
            ])
        ]) { server, dir in
            let url = server.url("/r.png")
            let pipeline = try makePipeline(dir)
            let first = try await pipeline.image(for: url)
            #expect(try await pipeline.diskCache?.entry(forKey: first.cacheKey.raw, includingStale: true) != nil)
            let second = try await pipeline.image(for: url)
            #expect(second.data == tiles && second.source == .network)
            #expect(try await pipeline.diskCache?.entry(forKey: first.cacheKey.raw, includingStale: true) == nil)
        }
    }

    @Test func anExpiresInThePastIsStaleAndAnInvalidOneToo() async throws {
        try await withServerAndCache([
            "/past.png": try Self.resource(["Expires": "Thu, 01 Jan 2015 00:00:00 GMT"]),
            "/zero.png": try Self.resource(["Expires": "0"])
        ]) { server, dir in
            let pipeline = try makePipeline(dir)
            for path in ["/past.png", "/zero.png"] {
                _ = try await pipeline.image(for: server.url(path))
                _ = try await pipeline.image(for: server.url(path))
                #expect(server.requestCount(for: path) == 2, "\(path) was not revalidated")
            }
        }
    }

    @Test func whenTheOriginFailsAStaleCopyIsDeliveredMarkedStale() async throws {
        let badge = try pngData("badge.png")
        try await withServerAndCache([
            "/r.png": .sequence([
                try Self.resource(["Cache-Control": "max-age=0"]), .status(503)
            ])
        ]) { server, dir in
            let url = server.url("/r.png")
            let metrics = TestMetrics()
            let pipeline = try makePipeline(dir, metrics: metrics)
            _ = try await pipeline.image(for: url)
            let second = try await pipeline.image(for: url)
            #expect(second.isStale && second.source == .disk && second.data == badge)
            #expect(server.requestCount(for: "/r.png") == 2)
            #expect(metrics.total("trove_stale_delivered_total") == 1)
        }
    }

    @Test func aLastingFailureIsNotHiddenByAStaleCopy() async throws {
        try await withServerAndCache([
            "/r.png": .sequence([
                try Self.resource(["Cache-Control": "max-age=0"]), .status(404)
            ])
        ]) { server, dir in
            let url = server.url("/r.png")
            let pipeline = try makePipeline(dir)
            _ = try await pipeline.image(for: url)
            await #expect(throws: TroveError.httpStatus(404, url: url.absoluteString)) {
                _ = try await pipeline.image(for: url)
            }
        }
    }

    @Test func refreshWithTheOriginDownDeliversTheCachedCopyMarkedStale() async throws {
        try await withServerAndCache([
            "/r.png": .sequence([
                try Self.resource(["Cache-Control": "max-age=3600"]), .status(503)
            ])
        ]) { server, dir in
            let url = server.url("/r.png")
            let firstPipeline = try makePipeline(dir)
            let first = try await firstPipeline.image(for: url)
            await firstPipeline.flush()
            let refreshed = try await makePipeline(dir).image(for: ImageRequest(url: url, cachePolicy: .refresh))
            #expect(refreshed.isStale && refreshed.image == first.image)
            #expect(server.requestCount(for: "/r.png") == 2)
        }
    }

    @Test func ignoringCacheHeadersKeepsEveryResponseFreshForTheDefault() async throws {
        try await withServerAndCache(["/r.png": try Self.resource(["Cache-Control": "no-store, max-age=0"])]) {
            server, dir in
            let url = server.url("/r.png")
            let pipeline = try makePipeline(dir) { $0.ignoresCacheHeaders = true }
            _ = try await pipeline.image(for: url)
            let second = try await pipeline.image(for: url)
            #expect(second.source == .memory)
            #expect(server.requestCount(for: "/r.png") == 1)
        }
    }

    @Test func aRequestsOwnMaxAgeOverridesTheResponse() async throws {
        try await withServerAndCache(["/r.png": try Self.resource(["Cache-Control": "max-age=3600"])]) { server, dir in
            let url = server.url("/r.png")
            let pipeline = try makePipeline(dir)
            _ = try await pipeline.image(for: url)
            // Younger than a minute: used as is, from disk (a max age skips memory).
            let young = try await pipeline.image(for: ImageRequest(url: url, maxAge: .seconds(60)))
            #expect(young.source == .disk)
            #expect(server.requestCount(for: "/r.png") == 1)
            // Older than zero seconds: revalidated.
            _ = try await pipeline.image(for: ImageRequest(url: url, maxAge: .zero))
            #expect(server.requestCount(for: "/r.png") == 2)
        }
    }

    @Test func theMemoryTierNeverServesPastFreshness() async throws {
        // max-age=3: the Date header has whole seconds, so up to one of them counts as age already.
        try await withServerAndCache(["/r.png": try Self.resource(["Cache-Control": "max-age=3"])]) { server, dir in
            let url = server.url("/r.png")
            let pipeline = try makePipeline(dir)
            let first = try await pipeline.image(for: url)
            #expect(pipeline.memoryCache.value(forKey: first.cacheKey.processed) != nil)
            // Observed, not slept on: the entry leaves memory when its freshness runs out.
            #expect(
                await eventually(within: .seconds(10)) {
                    pipeline.memoryCache.value(forKey: first.cacheKey.processed) == nil
                })
            // The disk entry's expiry may trail the memory's by the time the store took to queue; past it,
            // the next load must ask the origin.
            #expect(
                await eventually(within: .seconds(10)) {
                    await pipeline.diskCache?.freshEntrySize(forKey: first.cacheKey.raw) == nil
                })
            _ = try await pipeline.image(for: url)
            #expect(server.requestCount(for: "/r.png") == 2)
        }
    }
}
