import FixtureServer
import Foundation
import MetricsTestKit
import Testing
import Trove

/// `must-revalidate` (RFC 9111 §5.2.2.2) is kept in the disk entry, so a stale copy of such a response is
/// never delivered in place of a failed origin, by this pipeline or a later one on the same directory.
@Suite struct MustRevalidateTests {
    /// Stale at once, then the origin answers 503.
    static func staleThenDown(_ cacheControl: String) throws -> FixtureServer.Route {
        .sequence([try HTTPFreshnessTests.resource(["Cache-Control": cacheControl]), .status(503)])
    }

    @Test(arguments: [false, true])
    func aStaleCopyStandsInForAFailedOriginUnlessMustRevalidate(mustRevalidate: Bool) async throws {
        let cacheControl = mustRevalidate ? "max-age=0, must-revalidate" : "max-age=0"
        let badge = try pngData("badge.png")
        try await withServerAndCache(["/r.png": try Self.staleThenDown(cacheControl)]) { server, dir in
            let url = server.url("/r.png")
            let seeding = try makePipeline(dir)
            let first = try await seeding.image(for: url)
            await seeding.flush()  // stores are write-behind; the next pipeline reads the file
            let entry = try #require(
                try await makePipeline(dir).diskCache?.entry(forKey: first.cacheKey.raw, includingStale: true))
            #expect(entry.metadata.mustRevalidate == mustRevalidate)
            // A new pipeline: what it knows about the entry comes from the file.
            let metrics = TestMetrics()
            let second = try makePipeline(dir, metrics: metrics)
            if mustRevalidate {
                await #expect(throws: TroveError.httpStatus(503, url: url.absoluteString)) {
                    _ = try await second.image(for: url)
                }
                #expect(metrics.total("trove_stale_delivered_total") == 0)
            } else {
                let stale = try await second.image(for: url)
                #expect(stale.isStale && stale.source == .disk && stale.data == badge)
                #expect(metrics.total("trove_stale_delivered_total") == 1)
            }
            #expect(server.requestCount(for: "/r.png") == 2)
            // The entry stays for a later successful revalidation either way.
            #expect(try await second.diskCache?.entry(forKey: first.cacheKey.raw, includingStale: true) != nil)
        }
    }

    @Test func refreshOfAStaleMustRevalidateCopyFailsAndShowsNoCachedResult() async throws {
        try await withServerAndCache(["/r.png": try Self.staleThenDown("max-age=0, must-revalidate")]) {
            server, dir in
            let url = server.url("/r.png")
            let seeding = try makePipeline(dir)
            _ = try await seeding.image(for: url)
            await seeding.flush()
            let task = try makePipeline(dir).task(for: ImageRequest(url: url, cachePolicy: .refresh))
            var cachedEvents = 0
            await #expect(throws: TroveError.httpStatus(503, url: url.absoluteString)) {
                for try await event in task.events {
                    if case .cached = event { cachedEvents += 1 }
                }
            }
            #expect(cachedEvents == 0)
            #expect(server.requestCount(for: "/r.png") == 2)
        }
    }

    @Test func aFreshMustRevalidateCopyIsServedWithoutAsking() async throws {
        try await withServerAndCache([
            "/r.png": try HTTPFreshnessTests.resource(["Cache-Control": "max-age=3600, must-revalidate"])
        ]) { server, dir in
            let url = server.url("/r.png")
            let seeding = try makePipeline(dir)
            _ = try await seeding.image(for: url)
            await seeding.flush()
            let second = try await makePipeline(dir).image(for: url)
            #expect(second.source == .disk && !second.isStale)
            #expect(server.requestCount(for: "/r.png") == 1)
        }
    }

    @Test func a304WithoutCacheControlKeepsTheFlagAndOneWithItReplacesIt() async throws {
        let badge = try pngData("badge.png")
        let bare = FixtureServer.Route.conditional(
            badge, contentType: "image/png", lastModified: HTTPFreshnessTests.modified)
        try await withServerAndCache([
            "/r.png": .sequence([
                try HTTPFreshnessTests.resource(["Cache-Control": "max-age=0, must-revalidate"]),
                .withHeaders(["Expires": "0"], bare),  // stale again, and no Cache-Control: the flag stands
                try HTTPFreshnessTests.resource(["Cache-Control": "max-age=0"])  // a Cache-Control without it
            ])
        ]) { server, dir in
            let url = server.url("/r.png")
            let pipeline = try makePipeline(dir)
            let key = try await pipeline.image(for: url).cacheKey.raw
            func storedFlag() async throws -> Bool {
                try #require(try await pipeline.diskCache?.entry(forKey: key, includingStale: true)).metadata
                    .mustRevalidate
            }
            var flags = [try await storedFlag()]
            for _ in 0..<2 {
                _ = try await pipeline.image(for: url)
                flags.append(try await storedFlag())
            }
            let log = server.requestLog(for: "/r.png")
            #expect(log.count == 3)
            #expect(log.dropFirst().allSatisfy { $0.header("if-none-match") == FixtureServer.etag(for: badge) })
            #expect(flags == [true, true, false])
        }
    }
}
