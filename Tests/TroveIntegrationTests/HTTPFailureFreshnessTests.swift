import FixtureServer
import Foundation
import Testing
import Trove
import TroveTestSupport

/// Remembered failures (404, 410) honour the failed answer's own freshness: an explicit lifetime wins over
/// the configured 10 minutes, and an answer that is stale already is not remembered at all.
@Suite struct HTTPFailureFreshnessTests {
    func failure(_ url: URL, in dir: URL) async -> TroveError? {
        do {
            _ = try await fetchOnce(url, in: dir)
            return nil
        } catch {
            return error as? TroveError
        }
    }

    @Test(arguments: [404, 410])
    func aFailureThatIsStaleAlreadyIsNotRemembered(status: Int) async throws {
        try await withServerAndCache([
            "/max-age": textRoute("gone", status: status, [("Cache-Control", "max-age=0")]),
            "/expires": textRoute("gone", status: status, [("Expires", httpDate(-5000)), ("Date", httpDate(0))])
        ]) { server, dir in
            for path in ["/max-age", "/expires"] {
                let url = server.url(path)
                #expect(await failure(url, in: dir) == .httpStatus(status, url: url.absoluteString))
                #expect(await failure(url, in: dir) == .httpStatus(status, url: url.absoluteString))
                #expect(server.requestCount(for: path) == 2)
            }
        }
    }

    @Test func aFailureWithoutALifetimeIsRememberedForTheConfiguredTime() async throws {
        try await withServerAndCache(["/r": textRoute("gone", status: 404, [])]) { server, dir in
            let url = server.url("/r")
            #expect(await failure(url, in: dir) == .httpStatus(404, url: url.absoluteString))
            guard case let .previouslyFailed(_, cause, _)? = await failure(url, in: dir) else {
                Issue.record("the second request was not answered by the remembered failure")
                return
            }
            #expect(cause == "HTTP 404")
            #expect(server.requestCount(for: "/r") == 1)
            let lifetime = try await rememberedLifetime(of: url, in: dir)
            #expect(lifetime > 595 && lifetime <= 600)
        }
    }

    @Test func anExplicitLifetimeWinsOverTheConfiguredTime() async throws {
        try await withServerAndCache(["/r": textRoute("gone", status: 410, [("Cache-Control", "max-age=3600")])]) {
            server, dir in
            let url = server.url("/r")
            _ = await failure(url, in: dir)
            let lifetime = try await rememberedLifetime(of: url, in: dir)
            #expect(lifetime > 3595 && lifetime <= 3600)
        }
    }

    /// How long the failure store keeps `url`'s failure.
    func rememberedLifetime(of url: URL, in dir: URL) async throws -> TimeInterval {
        let store = try DiskCache(directory: dir.appendingPathComponent("failed-urls"))
        let entry = try #require(try await store.entry(forKey: url.absoluteString))
        return try #require(entry.metadata.expires).timeIntervalSince(entry.metadata.created)
    }

    /// Another client error is remembered while its answer says it is fresh, or for the configured time when
    /// RFC 9110 calls its status heuristically cacheable; never one that depends on credentials or load, nor
    /// a server error.
    @Test(
        arguments: [
            (400, "max-age=3600", true), (499, "max-age=3600", true), (400, nil, false), (405, nil, true),
            (414, nil, true), (403, "max-age=3600", false), (429, "max-age=3600", false), (500, "max-age=3600", false),
            (400, "max-age=3600, no-store", false)
        ] as [(Int, String?, Bool)])
    func aClientErrorIsRememberedByItsOwnLifetime(status: Int, cacheControl: String?, remembered: Bool) async throws {
        let fields = cacheControl.map { [("Cache-Control", $0)] } ?? []
        try await withServerAndCache(["/r": textRoute("no", status: status, fields)]) { server, dir in
            let url = server.url("/r")
            #expect(await failure(url, in: dir) == .httpStatus(status, url: url.absoluteString))
            let second = await failure(url, in: dir)
            if remembered {
                guard case let .previouslyFailed(_, cause, _)? = second else {
                    Issue.record(
                        "the second request was not answered by the remembered failure: \(String(describing: second))")
                    return
                }
                #expect(cause == "HTTP \(status)")
            }
            #expect(server.requestCount(for: "/r") == (remembered ? 1 : 2))
        }
    }
}
