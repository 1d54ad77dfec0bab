import FixtureServer
import Foundation
import Testing
import Trove
import TroveFetcher
import TroveTestSupport

/// A pipeline with a cookie store sends what earlier responses set, hop by hop, and one without sends
/// nothing. Each request is for a URL of its own, so no answer comes from a cache.
@Suite struct CookieTests {
    static let routes: [String: FixtureServer.Route] = [
        "/shop/login": .settingCookies(
            ["session=abc; Path=/shop", "gone=1; Max-Age=0", "admin=1; Path=/admin"], .echo),
        "/shop/cart": .echo,
        "/shop/logout": .settingCookies(["session=abc; Path=/shop; Max-Age=0"], .echo),
        "/shop/after-logout": .echo,
        "/admin/panel": .echo,
        "/sso/start": .settingCookies(["hop=1; Path=/", "private=1; Path=/sso/private"], .redirect(to: "/landing")),
        "/landing": .echo,
        "/sso/again": .redirect(to: "/landing-again"),
        "/landing-again": .echo
    ]

    func pipeline(cookieStore: (any CookieStore)?, headers: [String: String] = [:]) throws -> DataPipeline {
        var configuration = PipelineConfiguration.memoryOnly
        configuration.cookieStore = cookieStore
        configuration.headers = headers
        return try DataPipeline(configuration: configuration)
    }

    /// The `Cookie` header of each request the server received for `path`, nil where there was none.
    func cookiesSent(to path: String, on server: FixtureServer) -> [String?] {
        server.requestLog(for: path).map { $0.header("cookie") }
    }

    @Test func aCookieSetByOneResponseGoesWithTheNextRequestToItsHostAndPath() async throws {
        try await withServerAndCache(Self.routes) { server, _ in
            let jar = CookieJar()
            let pipeline = try pipeline(cookieStore: jar)
            _ = try await pipeline.data(for: server.url("/shop/login"))
            _ = try await pipeline.data(for: server.url("/shop/cart"))
            #expect(cookiesSent(to: "/shop/login", on: server) == [nil])
            // Not `gone` (Max-Age=0) and not `admin` (Path=/admin).
            #expect(cookiesSent(to: "/shop/cart", on: server) == ["session=abc"])
            _ = try await pipeline.data(for: server.url("/admin/panel"))
            #expect(cookiesSent(to: "/admin/panel", on: server) == ["admin=1"])
            #expect(jar.allCookies.map(\.name) == ["session", "admin"])
        }
    }

    @Test func seededCookiesTurnOnAJarThatAlsoKeepsWhatResponsesSet() async throws {
        try await withServerAndCache(Self.routes) { server, _ in
            var configuration = PipelineConfiguration.memoryOnly
            configuration.cookies = [server.url("/").absoluteString: ["theme=dark; Path=/shop"]]
            let pipeline = try DataPipeline(configuration: configuration)
            _ = try await pipeline.data(for: server.url("/shop/login"))
            _ = try await pipeline.data(for: server.url("/shop/cart"))
            _ = try await pipeline.data(for: server.url("/admin/panel"))
            #expect(cookiesSent(to: "/shop/login", on: server) == ["theme=dark"])
            // Equal paths: the one stored first goes first.
            #expect(cookiesSent(to: "/shop/cart", on: server) == ["theme=dark; session=abc"])
            #expect(cookiesSent(to: "/admin/panel", on: server) == ["admin=1"])
        }
    }

    @Test func aSeedAClientWouldNotKeepIsRefusedByName() throws {
        #expect(
            throws: TroveError.invalidConfiguration(
                "the cookie 'a=1; Domain=other.example' for http://127.0.0.1:8080/ is not one a client keeps: give "
                    + "'name=value', with a Domain (if any) that 127.0.0.1 is in")
        ) {
            try PipelineConfiguration.checkCookies(["http://127.0.0.1:8080/": ["a=1; Domain=other.example"]])
        }
        #expect(
            throws: TroveError.invalidConfiguration(
                "cookies are given by the URL they are sent to, such as https://example.com/, not 'example.com'")
        ) {
            try PipelineConfiguration.checkCookies(["example.com": ["a=1"]])
        }
        try PipelineConfiguration.checkCookies(["https://example.com/": ["a=1; Path=/; Secure", "b=2"]])
    }

    @Test func maxAgeZeroFromTheOriginDeletesACookie() async throws {
        try await withServerAndCache(Self.routes) { server, _ in
            let pipeline = try pipeline(cookieStore: CookieJar())
            _ = try await pipeline.data(for: server.url("/shop/login"))
            _ = try await pipeline.data(for: server.url("/shop/logout"))
            _ = try await pipeline.data(for: server.url("/shop/after-logout"))
            #expect(cookiesSent(to: "/shop/logout", on: server) == ["session=abc"])
            #expect(cookiesSent(to: "/shop/after-logout", on: server) == [nil])
        }
    }

    @Test func aCookieSetByARedirectReachesItsTargetWhenItMatches() async throws {
        try await withServerAndCache(Self.routes) { server, _ in
            let jar = CookieJar()
            let pipeline = try pipeline(cookieStore: jar)
            let response = try await pipeline.data(for: server.url("/sso/start"))
            #expect(String(decoding: response.data, as: UTF8.self) == "GET ")
            #expect(cookiesSent(to: "/sso/start", on: server) == [nil])
            // `private` was stored from the redirect too, but its path is not the target's.
            #expect(cookiesSent(to: "/landing", on: server) == ["hop=1"])
            #expect(jar.allCookies.map(\.name) == ["hop", "private"])
            // Every hop of a later fetch sends what matches it.
            _ = try await pipeline.data(for: server.url("/sso/again"))
            #expect(cookiesSent(to: "/sso/again", on: server) == ["hop=1"])
            #expect(cookiesSent(to: "/landing-again", on: server) == ["hop=1"])
        }
    }

    @Test func storedCookiesFollowACookieHeaderTheRequestSetItself() async throws {
        try await withServerAndCache(Self.routes) { server, _ in
            let pipeline = try pipeline(cookieStore: CookieJar(), headers: ["Cookie": "theme=dark"])
            _ = try await pipeline.data(for: server.url("/shop/login"))
            _ = try await pipeline.data(for: server.url("/shop/cart"))
            #expect(cookiesSent(to: "/shop/login", on: server) == ["theme=dark"])
            #expect(cookiesSent(to: "/shop/cart", on: server) == ["theme=dark; session=abc"])
        }
    }

    @Test func withoutACookieStoreNothingIsSent() async throws {
        try await withServerAndCache(Self.routes) { server, _ in
            let pipeline = try pipeline(cookieStore: nil)
            for path in ["/shop/login", "/shop/cart", "/sso/start", "/sso/again"] {
                _ = try await pipeline.data(for: server.url(path))
            }
            let sent = server.requestLog.map { $0.header("cookie") }
            #expect(sent.count == 6)  // both redirects were followed
            #expect(sent.allSatisfy { $0 == nil })
        }
    }
}
