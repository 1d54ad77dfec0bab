import FixtureServer
import Foundation
import Testing
import TroveCore
import TroveFetcher

/// The fetchers and a request's cookie store: HTTPFetcher sends and keeps cookies on every hop while a
/// request's own `Cookie` header stays with its origin; GuardedHTTPFetcher (`trove serve`) does neither.
@Suite struct HTTPFetcherCookieTests {
    func request(_ url: URL, store: CookieJar?, headers: [String: String] = [:]) -> FetchRequest {
        var request = FetchRequest(url: url, headers: headers, timeout: .seconds(5))
        request.cookieStore = store
        return request
    }

    @Test func aRequestsOwnCookieHeaderStaysWithItsOriginWhileStoredCookiesFollowTheirHost() async throws {
        try await withServer(["/land": .echo]) { target in
            try await redirect(to: target)
        }
    }

    /// Fetches from a second server whose `/go` sets a cookie and redirects to `target`'s `/land`.
    func redirect(to target: FixtureServer) async throws {
        try await withServer([
            "/go": .settingCookies(["stored=1; Path=/"], .redirect(to: target.url("/land").absoluteString))
        ]) { origin in
            let jar = CookieJar()
            let fetched = try await HTTPFetcher().fetch(
                request(origin.url("/go"), store: jar, headers: ["Cookie": "secret=1"]))
            guard case let .data(body, _) = fetched else {
                Issue.record("expected the target's body, got \(fetched)")
                return
            }
            #expect(String(decoding: body, as: UTF8.self) == "GET ")
            #expect(origin.requestLog(for: "/go").map { $0.header("cookie") } == ["secret=1"])
            // Another port is another origin, so `secret` is dropped; cookies are not isolated by port, so
            // the one stored from 127.0.0.1 goes to 127.0.0.1 again.
            #expect(target.requestLog(for: "/land").map { $0.header("cookie") } == ["stored=1"])
        }
    }

    @Test func theGuardedFetcherNeitherSendsNorKeepsCookies() async throws {
        try await withServer(["/img": .settingCookies(["tracker=1; Path=/"], .echo)]) { server in
            let jar = CookieJar()
            jar.store(StoredCookie(name: "session", value: "s", domain: "127.0.0.1", hostOnly: true))
            let guarded = GuardedHTTPFetcher(
                addressPolicy: AddressPolicy(allowLoopback: true), resolver: StubResolver([:]))
            _ = try await guarded.fetch(request(server.url("/img"), store: jar))
            #expect(server.requestLog(for: "/img").map { $0.header("cookie") } == [nil])
            #expect(jar.allCookies.map(\.name) == ["session"])
            // The plain fetcher, given the same request, does both.
            _ = try await HTTPFetcher().fetch(request(server.url("/img"), store: jar))
            #expect(server.requestLog(for: "/img").map { $0.header("cookie") } == [nil, "session=s"])
            #expect(jar.allCookies.map(\.name) == ["session", "tracker"])
        }
    }
}
