import Foundation
import Synchronization
import Testing

@testable import TroveFetcher

/// Which stored cookies go with which request (RFC 6265 §5.1.3, §5.1.4, §5.4), and how the jar replaces,
/// expires and orders them.
@Suite struct CookieJarTests {
    /// A clock the test moves by hand.
    final class Clock: Sendable {
        private let time = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { time.withLock { $0 } }
        func advance(by seconds: TimeInterval) { time.withLock { $0 += seconds } }
    }

    func url(_ text: String) -> URL { URL(string: text)! }

    func jar(_ clock: Clock = Clock(), capacity: Int = CookieJar.defaultCapacity) -> CookieJar {
        CookieJar(capacity: capacity, clock: { clock.now })
    }

    @Test func domainMatching() {
        #expect(StoredCookie.domain("example.com", matches: "example.com"))
        #expect(StoredCookie.domain("www.example.com", matches: "example.com"))
        #expect(StoredCookie.domain("a.b.example.com", matches: "example.com"))
        #expect(!StoredCookie.domain("badexample.com", matches: "example.com"))
        #expect(!StoredCookie.domain("example.com", matches: "www.example.com"))
        #expect(!StoredCookie.domain("10.0.0.1", matches: "0.0.1"))
        #expect(StoredCookie.domain("10.0.0.1", matches: "10.0.0.1"))
    }

    @Test func pathMatching() {
        #expect(StoredCookie.path("/docs", matches: "/docs"))
        #expect(StoredCookie.path("/docs/guide", matches: "/docs"))
        #expect(StoredCookie.path("/docs/guide", matches: "/docs/"))
        #expect(StoredCookie.path("/anything", matches: "/"))
        #expect(!StoredCookie.path("/docsearch", matches: "/docs"))
        #expect(!StoredCookie.path("/doc", matches: "/docs"))
        #expect(!StoredCookie.path("/Docs", matches: "/docs"))
    }

    @Test func aHostOnlyCookieGoesToItsHostAloneAndADomainCookieToSubdomainsToo() {
        let jar = jar()
        jar.storeCookies(
            fromSetCookieHeaders: ["host=1", "wide=2; Domain=example.com"],
            receivedFrom: url("http://example.com/"))
        #expect(jar.cookieHeader(for: url("http://example.com/")) == "host=1; wide=2")
        #expect(jar.cookieHeader(for: url("http://img.example.com/a.png")) == "wide=2")
        #expect(jar.cookieHeader(for: url("http://EXAMPLE.com:8080/x")) == "host=1; wide=2")  // ports are not isolated
        #expect(jar.cookieHeader(for: url("http://example.org/")) == nil)
        #expect(jar.cookieHeader(for: url("http://notexample.com/")) == nil)
    }

    @Test func aCookieGoesOnlyToItsPathAndBelow() {
        let jar = jar()
        jar.storeCookies(fromSetCookieHeaders: ["a=1; Path=/images"], receivedFrom: url("http://h.test/login"))
        #expect(jar.cookieHeader(for: url("http://h.test/images")) == "a=1")
        #expect(jar.cookieHeader(for: url("http://h.test/images/cat.png?size=2")) == "a=1")
        #expect(jar.cookieHeader(for: url("http://h.test/imagesets/cat.png")) == nil)
        #expect(jar.cookieHeader(for: url("http://h.test/")) == nil)
    }

    @Test func aSecureCookieGoesOnlyOverHTTPS() {
        let jar = jar()
        jar.storeCookies(fromSetCookieHeaders: ["s=1; Secure", "p=2"], receivedFrom: url("https://h.test/"))
        #expect(jar.cookieHeader(for: url("https://h.test/")) == "s=1; p=2")
        #expect(jar.cookieHeader(for: url("http://h.test/")) == "p=2")
    }

    @Test func aCookieStopsAtItsExpiryAndMaxAgeZeroDeletesIt() {
        let clock = Clock()
        let jar = jar(clock)
        let site = url("http://h.test/")
        jar.storeCookies(fromSetCookieHeaders: ["short=1; Max-Age=10", "session=2", "old=3"], receivedFrom: site)
        #expect(jar.cookieHeader(for: site) == "short=1; session=2; old=3")
        jar.storeCookies(fromSetCookieHeaders: ["old=gone; Max-Age=0"], receivedFrom: site)
        #expect(jar.cookieHeader(for: site) == "short=1; session=2")
        clock.advance(by: 10)
        #expect(jar.cookieHeader(for: site) == "session=2")
        #expect(jar.allCookies.map(\.name) == ["session"])
        // An Expires in the past deletes too, and an expired cookie is never stored.
        jar.storeCookies(
            fromSetCookieHeaders: ["session=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT", "new=1; Max-Age=0"],
            receivedFrom: site)
        #expect(jar.cookieHeader(for: site) == nil && jar.allCookies.isEmpty)
    }

    @Test func aCookieReplacesTheOneWithItsNameDomainAndPathKeepingItsPlace() {
        let jar = jar()
        let site = url("http://h.test/app/page")
        jar.storeCookies(fromSetCookieHeaders: ["a=1; Path=/", "b=2; Path=/", "a=1; Path=/app"], receivedFrom: site)
        jar.storeCookies(fromSetCookieHeaders: ["a=changed; Path=/"], receivedFrom: site)
        // Longer paths first; among equal paths, the first stored first, a replacement keeping its place.
        #expect(jar.cookieHeader(for: site) == "a=1; a=changed; b=2")
        #expect(jar.allCookies.count == 3)
    }

    @Test func pastItsCapacityTheJarDropsTheOldest() {
        let jar = jar(capacity: 2)
        let site = url("http://h.test/")
        jar.storeCookies(fromSetCookieHeaders: ["a=1", "b=2", "c=3"], receivedFrom: site)
        #expect(jar.cookieHeader(for: site) == "b=2; c=3")
    }

    @Test func headersAClientMustIgnoreChangeNothing() {
        let jar = jar()
        let site = url("http://www.h.test/")
        jar.storeCookies(
            fromSetCookieHeaders: ["novalue", "x=1; Domain=other.test", "y=2; Domain=test"], receivedFrom: site)
        #expect(jar.allCookies.isEmpty)
    }

    @Test func removeAllForgetsEverything() {
        let jar = jar()
        jar.store(StoredCookie(name: "a", value: "1", domain: "h.test", hostOnly: true))
        #expect(jar.cookieHeader(for: url("http://h.test/")) == "a=1")
        jar.removeAll()
        #expect(jar.cookieHeader(for: url("http://h.test/")) == nil)
    }
}
