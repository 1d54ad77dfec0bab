import FixtureServer
import Foundation
import Testing
import Trove
import TroveTestSupport

/// stale-while-revalidate (RFC 5861 §3): within its window a stale copy is delivered at once and revalidated
/// behind the caller; outside it, or under must-revalidate, the caller waits for the origin as before.
@Suite struct HTTPStaleWhileRevalidateTests {
    static let modified = Date(timeIntervalSince1970: 1_790_000_000)

    static func resource(_ cacheControl: String) -> FixtureServer.Route {
        .withFieldLines(
            [(name: "Cache-Control", value: cacheControl)],
            .conditional(Data("body".utf8), contentType: "text/plain", lastModified: modified))
    }

    @Test func aStaleCopyWithinTheWindowIsDeliveredAtOnceAndRevalidatedBehind() async throws {
        // The revalidation's 304 gives an hour: the entry is surely fresh when asked after it.
        let route = FixtureServer.Route.sequence([
            Self.resource("max-age=1, stale-while-revalidate=3600"), Self.resource("max-age=3600")
        ])
        try await withServerAndCache(["/r": route]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            try await Task.sleep(for: .milliseconds(1500))
            let pipeline = try makeDataPipeline(dir)
            let stale = try await pipeline.data(for: url)
            #expect(stale.source == .disk && stale.isStale && stale.text == "body")
            // flush() waits for the revalidation, which asked with the stored validators.
            await pipeline.flush()
            let log = server.requestLog(for: "/r")
            #expect(log.count == 2 && log.last?.headers["if-none-match"] != nil)
            // The 304 made the entry fresh again.
            let fresh = try await fetchOnce(url, in: dir)
            #expect(fresh.source == .disk && !fresh.isStale)
            #expect(server.requestCount(for: "/r") == 2)
        }
    }

    @Test func imagesGetTheStaleCopyAtOnceToo() async throws {
        let route = FixtureServer.Route.withFieldLines(
            [(name: "Cache-Control", value: "max-age=1, stale-while-revalidate=3600")],
            .conditional(try pngData("badge.png"), contentType: "image/png", lastModified: Self.modified))
        try await withServerAndCache(["/r.png": route]) { server, dir in
            let url = server.url("/r.png")
            let first = try makePipeline(dir)
            _ = try await first.image(for: url)
            await first.flush()
            try await Task.sleep(for: .milliseconds(1500))
            let second = try makePipeline(dir)
            let stale = try await second.image(for: url)
            #expect(stale.source == .disk && stale.isStale)
            await second.flush()
            #expect(server.requestCount(for: "/r.png") == 2)
        }
    }

    @Test(arguments: ["max-age=0, stale-while-revalidate=0", "max-age=0, must-revalidate, stale-while-revalidate=3600"])
    func outsideTheWindowOrUnderMustRevalidateTheCallerWaitsForTheOrigin(cacheControl: String) async throws {
        try await withServerAndCache(["/r": Self.resource(cacheControl)]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            let pipeline = try makeDataPipeline(dir)
            let answer = try await pipeline.data(for: url)
            // Revalidated before the answer: not marked stale, and the origin was asked before flush().
            #expect(!answer.isStale && answer.text == "body")
            #expect(server.requestCount(for: "/r") == 2)
        }
    }

    @Test func aRequestThatAsksForFreshnessIsNotGivenTheStaleCopy() async throws {
        try await withServerAndCache(["/r": Self.resource("max-age=0, stale-while-revalidate=3600")]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            let answer = try await fetchOnce(url, in: dir, headers: ["Cache-Control": "no-cache"])
            #expect(!answer.isStale)
            #expect(server.requestCount(for: "/r") == 2)
        }
    }
}
