import FixtureServer
import Foundation
import Testing
import Trove
import TroveTestSupport

/// RFC 9111 §4.2.2: a lifetime of the cache's own only for heuristically cacheable statuses, never over an
/// explicit one; the image default (the disk's 7 days) or the RFC's 10% of the time since Last-Modified.
@Suite struct HTTPHeuristicFreshnessTests {
    static func rfc(_ configuration: inout PipelineConfiguration) {
        configuration.heuristicFreshness = .lastModifiedFraction
    }

    func lifetime(of url: URL, in dir: URL) async throws -> TimeInterval? {
        let entry = try #require(
            try await makeDataPipeline(dir).diskCache?.entry(forKey: url.absoluteString, includingStale: true))
        return entry.metadata.expires.map { $0.timeIntervalSince(entry.metadata.created) }
    }

    @Test(arguments: [201, 202])
    func aStatusThatIsNotHeuristicallyCacheableIsNotReusedWithoutALifetime(status: Int) async throws {
        try await withServerAndCache(["/r": textRoute("made", status: status, [("Last-Modified", httpDate(-86_400))])])
        {
            server, dir in
            let url = server.url("/r")
            #expect(try await fetchOnce(url, in: dir).status == status)
            let second = try await fetchOnce(url, in: dir)
            #expect(second.source == .network && second.status == status)
            #expect(
                try await makeDataPipeline(dir).diskCache?.entry(forKey: url.absoluteString, includingStale: true)
                    == nil)
        }
    }

    @Test func withALifetimeOfItsOwnSuchAStatusIsReusedAsItCame() async throws {
        try await withServerAndCache(["/r": textRoute("made", status: 201, [("Cache-Control", "max-age=3600")])]) {
            server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            let second = try await fetchOnce(url, in: dir)
            #expect(second.source == .disk && second.status == 201 && second.text == "made")
        }
    }

    @Test func theDefaultKeepsA200WithoutALifetimeForTheDisksMaxAge() async throws {
        try await withServerAndCache(["/r": textRoute("a", [])]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            #expect(try await fetchOnce(url, in: dir).source == .disk)
            #expect(try await lifetime(of: url, in: dir) == nil)
        }
    }

    @Test func theRFCHeuristicIsATenthOfTheTimeSinceLastModified() async throws {
        try await withServerAndCache([
            "/r": textRoute("a", [("Date", httpDate(0)), ("Last-Modified", httpDate(-10 * 86_400))]),
            "/none": textRoute("b", [("Date", httpDate(0)), ("ETag", "\"x\"")])
        ]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir, Self.rfc)
            let seconds = try #require(try await lifetime(of: url, in: dir))
            #expect(seconds > 86_390 && seconds <= 86_400)
            #expect(try await fetchOnce(url, in: dir, Self.rfc).source == .disk)
            // No Last-Modified: nothing to reckon from, so stale at once (and revalidated next time).
            let none = server.url("/none")
            _ = try await fetchOnce(none, in: dir, Self.rfc)
            #expect(try #require(try await lifetime(of: none, in: dir)) <= 0)
            #expect(try await fetchOnce(none, in: dir, Self.rfc).source == .network)
            #expect(server.requestCount(for: "/none") == 2)
        }
    }

    @Test func anExplicitLifetimeWinsOverEitherHeuristic() async throws {
        try await withServerAndCache([
            "/r": textRoute("a", [("Cache-Control", "max-age=60"), ("Last-Modified", httpDate(-10 * 86_400))])
        ]) { server, dir in
            let url = server.url("/r")
            for heuristic in HeuristicFreshness.allCases {
                _ = try await fetchOnce(url, in: dir, policy: .reloadIgnoringCache) {
                    $0.heuristicFreshness = heuristic
                }
                // The explicit 60 s, not a heuristic's day (a tenth of ten days): read back within 10 s of the
                // fetch, however busy the machine.
                let seconds = try #require(try await lifetime(of: url, in: dir))
                #expect(seconds > 50 && seconds <= 60)
            }
        }
    }
}
