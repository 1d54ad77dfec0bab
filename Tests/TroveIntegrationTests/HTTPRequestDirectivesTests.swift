import FixtureServer
import Foundation
import Testing
import Trove
import TroveTestSupport

/// What a data request's own `Cache-Control` asks of the caches (RFC 9111 §5.2.1), through a loopback origin:
/// each step a new pipeline on one cache directory, as `trove fetch` runs.
@Suite struct HTTPRequestDirectivesTests {
    static let modified = Date(timeIntervalSince1970: 1_790_000_000)

    /// A text resource with these caching fields, an ETag and a Last-Modified, answering 304 to a match.
    static func resource(_ fields: [(String, String)], _ body: String = "body") -> FixtureServer.Route {
        .withFieldLines(
            fields.map { (name: $0.0, value: $0.1) },
            .conditional(Data(body.utf8), contentType: "text/plain", lastModified: modified))
    }

    func asking(_ cacheControl: String) -> [String: String] { ["Cache-Control": cacheControl] }

    @Test func maxAgeRefusesAnOlderStoredResponse() async throws {
        // Age 1800 on arrival: too old for max-age=600, young enough for max-age=3000.
        let route = Self.resource([("Cache-Control", "max-age=3600"), ("Age", "1800")])
        try await withServerAndCache(["/r": route]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            #expect(try await fetchOnce(url, in: dir, headers: asking("max-age=3000")).source == .disk)
            #expect(server.requestCount(for: "/r") == 1)
            let refused = try await fetchOnce(url, in: dir, headers: asking("max-age=600"))
            #expect(refused.text == "body" && refused.status == 200)
            // Asked with the stored validators: the origin confirmed the copy.
            #expect(server.requestCount(for: "/r") == 2)
            #expect(server.requestLog(for: "/r").last?.headers["if-none-match"] != nil)
        }
    }

    @Test func maxStaleTakesAStaleCopyWithinItsLimit() async throws {
        // Staleness counts from the response's expiry, which one that arrives already stale sets at its
        // arrival: this one is stale by at least 0.5 seconds when asked again, and by far less than 1000.
        let route = Self.resource([("Cache-Control", "max-age=1")])
        try await withServerAndCache(["/r": route]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            try await Task.sleep(for: .milliseconds(1500))
            let within = try await fetchOnce(url, in: dir, headers: asking("max-stale=1000"))
            #expect(within.source == .disk && within.isStale && within.text == "body")
            let unlimited = try await fetchOnce(url, in: dir, headers: asking("max-stale"))
            #expect(unlimited.source == .disk && unlimited.isStale)
            #expect(server.requestCount(for: "/r") == 1)
            _ = try await fetchOnce(url, in: dir, headers: asking("max-stale=0"))
            #expect(server.requestCount(for: "/r") == 2)
        }
    }

    @Test func maxStaleNeverTakesAMustRevalidateCopy() async throws {
        let route = Self.resource([("Cache-Control", "max-age=100, must-revalidate"), ("Age", "200")])
        try await withServerAndCache(["/r": route]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            _ = try await fetchOnce(url, in: dir, headers: asking("max-stale=1000"))
            #expect(server.requestCount(for: "/r") == 2)
        }
    }

    @Test func minFreshWantsThatMuchFreshnessLeft() async throws {
        let route = Self.resource([("Cache-Control", "max-age=1500"), ("Age", "1000")])
        try await withServerAndCache(["/r": route]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            #expect(try await fetchOnce(url, in: dir, headers: asking("min-fresh=100")).source == .disk)
            #expect(server.requestCount(for: "/r") == 1)
            // 500 seconds left, 1000 wanted: the origin is asked.
            _ = try await fetchOnce(url, in: dir, headers: asking("min-fresh=1000"))
            #expect(server.requestCount(for: "/r") == 2)
        }
    }

    @Test func noCacheRevalidatesAFreshCopyWithItsValidators() async throws {
        try await withServerAndCache(["/r": Self.resource([("Cache-Control", "max-age=3600")])]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            let answer = try await fetchOnce(url, in: dir, headers: asking("no-cache"))
            #expect(answer.text == "body" && answer.status == 200)
            let log = server.requestLog(for: "/r")
            #expect(log.count == 2 && log[1].headers["if-none-match"] != nil)
        }
    }

    @Test func noStoreGoesToTheOriginAndKeepsNothing() async throws {
        let first = textRoute("first", [("Cache-Control", "max-age=3600")])
        let second = textRoute("second", [("Cache-Control", "max-age=3600")])
        try await withServerAndCache(["/r": .sequence([first, second])]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            let unstored = try await fetchOnce(url, in: dir, headers: asking("no-store"))
            #expect(unstored.text == "second" && unstored.source == .network)
            // The stored response is still the first one.
            let after = try await fetchOnce(url, in: dir)
            #expect(after.text == "first" && after.source == .disk)
            #expect(server.requestCount(for: "/r") == 2)
        }
    }

    @Test func onlyIfCachedNeverReachesTheNetwork() async throws {
        let route = Self.resource([("Cache-Control", "max-age=100"), ("Age", "200")])
        try await withServerAndCache(["/r": route]) { server, dir in
            let url = server.url("/r")
            await #expect(throws: TroveError.notCached(key: url.absoluteString)) {
                try await fetchOnce(url, in: dir, headers: asking("only-if-cached"))
            }
            #expect(server.requestCount(for: "/r") == 0)
            _ = try await fetchOnce(url, in: dir)
            // Stored but stale: refused unless the request also takes stale copies.
            await #expect(throws: TroveError.self) {
                try await fetchOnce(url, in: dir, headers: asking("only-if-cached"))
            }
            let stale = try await fetchOnce(url, in: dir, headers: asking("only-if-cached, max-stale"))
            #expect(stale.source == .disk && stale.isStale)
            #expect(server.requestCount(for: "/r") == 1)
        }
    }

    @Test func memoryDoesNotAnswerARequestThatLimitsTheAge() async throws {
        try await withServerAndCache(["/r": Self.resource([("Cache-Control", "max-age=3600")])]) { server, dir in
            let url = server.url("/r")
            let pipeline = try makeDataPipeline(dir)
            _ = try await pipeline.data(for: url)
            #expect(try await pipeline.data(for: url).source == .memory)
            await pipeline.flush()
            let judged = try await pipeline.data(for: DataRequest(url: url, headers: asking("max-age=3000")))
            #expect(judged.source == .disk)
            _ = try await pipeline.data(for: DataRequest(url: url, headers: asking("no-cache")))
            #expect(server.requestCount(for: "/r") == 2)
            // Directives the memory can honour leave it answering.
            #expect(
                try await pipeline.data(for: DataRequest(url: url, headers: asking("max-stale=5"))).source == .memory)
        }
    }

    @Test func directivesAreReadInAnyCaseAndBadValuesIgnored() async throws {
        let route = Self.resource([("Cache-Control", "max-age=3600"), ("Age", "1800")])
        try await withServerAndCache(["/r": route]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            #expect(try await fetchOnce(url, in: dir, headers: ["cache-control": "Max-Age=abc"]).source == .disk)
            #expect(server.requestCount(for: "/r") == 1)
            _ = try await fetchOnce(url, in: dir, headers: ["CACHE-CONTROL": "MAX-AGE=600"])
            #expect(server.requestCount(for: "/r") == 2)
        }
    }

    @Test func aRequestThatJudgesCopiesGetsNoStaleStandInForAFailedOrigin() async throws {
        let fresh = textRoute("body", [("Cache-Control", "max-age=3600"), ("ETag", "\"v1\"")])
        try await withServerAndCache(["/r": .sequence([fresh, .status(503)])]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            // The origin fails: no-cache wanted it asked, so the stored copy does not stand in.
            await #expect(throws: TroveError.self) {
                try await fetchOnce(url, in: dir, headers: asking("no-cache"))
            }
            // A plain request still gets the fresh copy.
            #expect(try await fetchOnce(url, in: dir).text == "body")
        }
    }

    @Test func onlyIfCachedWinsOverAPolicyOrMethodThatWouldReachTheNetwork() async throws {
        try await withServerAndCache(["/r": Self.resource([("Cache-Control", "max-age=3600")])]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            for policy in [CachePolicy.reloadIgnoringCache, .refresh] {
                await #expect(throws: TroveError.notCached(key: url.absoluteString)) {
                    try await fetchOnce(url, in: dir, headers: asking("only-if-cached"), policy: policy)
                }
            }
            await #expect(throws: TroveError.self) {
                try await fetchOnce(url, in: dir, headers: asking("only-if-cached"), method: "POST")
            }
            #expect(server.requestCount(for: "/r") == 1)
        }
    }

    /// A request with directives or conditions of its own fetches alone: joining a plain fetch in flight would
    /// let one request's rules decide the other's answer (a `max-stale` taking a stale shared-tier copy for both).
    @Test(arguments: [["Cache-Control": "max-stale=60"], ["If-None-Match": "\"x\""]])
    func aRequestThatAsksOfItsOwnDoesNotJoinAPlainFetch(headers: [String: String]) async throws {
        let gate = FixtureGate()
        let route = FixtureServer.Route.withFieldLines(
            [(name: "Cache-Control", value: "max-age=3600")],
            .gated(Data("body".utf8), contentType: "text/plain", gate: gate))
        try await withServerAndCache(["/r": route]) { server, dir in
            let url = server.url("/r")
            let pipeline = try makeDataPipeline(dir)
            async let plain = pipeline.data(for: url)
            await gate.waitForArrivals(1)
            async let own = pipeline.data(for: DataRequest(url: url, headers: headers))
            // Its own fetch reaches the origin beside the plain one's, instead of waiting on it.
            let fetchedAlone = await eventually { gate.arrivals == 2 }
            gate.open()
            let answers = try await (plain, own)
            #expect(fetchedAlone)
            #expect(answers.0.text == "body" && answers.1.text == "body")
            #expect(server.requestCount(for: "/r") == 2)
        }
    }
}
