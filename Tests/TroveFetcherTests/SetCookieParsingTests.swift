import Foundation
import Testing

@testable import TroveFetcher

/// `Set-Cookie` read as RFC 6265 §5.2 and §5.3 say a client reads it.
@Suite struct SetCookieParsingTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let page = URL(string: "http://www.example.com/docs/guide/page.html")!

    func parse(_ header: String, from url: URL = page) -> StoredCookie? {
        StoredCookie(setCookieHeader: header, receivedFrom: url, at: Self.now)
    }

    @Test func aBareCookieIsHostOnlyWithTheDefaultPathAndNoExpiry() throws {
        let cookie = try #require(parse("sid=abc123"))
        #expect(
            cookie
                == StoredCookie(
                    name: "sid", value: "abc123", domain: "www.example.com", hostOnly: true, path: "/docs/guide",
                    expires: nil, secure: false))
    }

    @Test func spacesAroundNamesValuesAndAttributesAreTrimmedAndNamesAreCaseInsensitive() throws {
        let cookie = try #require(parse(" lang = en-GB ; PATH=/docs ;SECURE; domain=Example.COM "))
        #expect(cookie.name == "lang" && cookie.value == "en-GB")
        #expect(cookie.path == "/docs" && cookie.secure)
        #expect(cookie.domain == "example.com" && !cookie.hostOnly)
    }

    @Test func aValueMayContainEqualsSignsAndBeEmpty() throws {
        #expect(try #require(parse("token=a=b==; Path=/")).value == "a=b==")
        #expect(try #require(parse("empty=")).value == "")
    }

    @Test(arguments: ["no-equals-sign", "=value", "  =value", ""])
    func aHeaderWithoutANameIsIgnored(_ header: String) {
        #expect(parse(header) == nil)
    }

    @Test func aNameAndValueOver4096BytesIsIgnored() {
        #expect(parse("big=" + String(repeating: "x", count: 4094)) == nil)
        #expect(parse("big=" + String(repeating: "x", count: 4093)) != nil)
    }

    @Test func maxAgeSetsTheExpiryFromNowAndWinsOverExpires() throws {
        let cookie = try #require(parse("a=1; Max-Age=60; Expires=Wed, 21 Oct 2015 07:28:00 GMT"))
        #expect(cookie.expires == Self.now.addingTimeInterval(60))
        // Order does not matter: Max-Age wins wherever it stands.
        let reversed = try #require(parse("a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Max-Age=60"))
        #expect(reversed.expires == Self.now.addingTimeInterval(60))
    }

    @Test func expiresIsReadInEachHTTPDateForm() throws {
        let expected = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        for form in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            #expect(try #require(parse("a=1; Expires=\(form)")).expires == expected, "\(form)")
        }
        #expect(try #require(parse("a=1; Expires=tomorrow")).expires == nil)
    }

    @Test func zeroOrNegativeMaxAgeMakesAnExpiredCookieAndAMalformedOneIsIgnored() throws {
        #expect(try #require(parse("a=1; Max-Age=0")).isExpired(at: Self.now))
        #expect(try #require(parse("a=1; Max-Age=-5")).isExpired(at: Self.now))
        for malformed in ["1.5", "+5", "ten", ""] {
            #expect(try #require(parse("a=1; Max-Age=\(malformed)")).expires == nil, "\(malformed)")
        }
        // A number too long for Int is a long time, not an error.
        let far = try #require(parse("a=1; Max-Age=99999999999999999999999")).expires
        #expect(far.map { $0 > Self.now.addingTimeInterval(3600 * 24 * 365 * 50) } == true)
    }

    @Test func aPathThatDoesNotStartWithASlashGivesTheDefaultPath() throws {
        #expect(try #require(parse("a=1; Path=docs")).path == "/docs/guide")
        #expect(try #require(parse("a=1; Path=")).path == "/docs/guide")
        #expect(try #require(parse("a=1", from: URL(string: "http://example.com/top")!)).path == "/")
        #expect(try #require(parse("a=1", from: URL(string: "http://example.com")!)).path == "/")
    }

    @Test func theLastOfARepeatedAttributeCounts() throws {
        let cookie = try #require(parse("a=1; Path=/one; Path=/two; Max-Age=10; Max-Age=20"))
        #expect(cookie.path == "/two" && cookie.expires == Self.now.addingTimeInterval(20))
    }

    @Test func aDomainTheHostIsInMakesADomainCookieAndOneItIsNotInIsRefused() throws {
        let parent = try #require(parse("a=1; Domain=.example.com"))
        #expect(parent.domain == "example.com" && !parent.hostOnly)
        #expect(parse("a=1; Domain=other.com") == nil)
        #expect(parse("a=1; Domain=ample.com") == nil)  // a suffix, but not at a dot
        #expect(parse("a=1; Domain=api.www.example.com") == nil)  // a subdomain of the host
    }

    @Test func aSingleLabelDomainIsRefusedUnlessItIsTheHostItself() throws {
        // Without the public suffix list, "com" stands for one: no cookie for all of .com.
        #expect(parse("a=1; Domain=com") == nil)
        let local = try #require(parse("a=1; Domain=localhost", from: URL(string: "http://localhost:8080/")!))
        #expect(local.domain == "localhost" && local.hostOnly)
    }

    @Test func anEmptyDomainIsIgnoredAndAnIPAddressDomainMustBeTheHost() throws {
        #expect(try #require(parse("a=1; Domain=")).hostOnly)
        let ip = URL(string: "http://127.0.0.1:8080/")!
        let cookie = try #require(parse("a=1; Domain=127.0.0.1", from: ip))
        #expect(cookie.domain == "127.0.0.1")
        #expect(parse("a=1; Domain=0.0.1", from: ip) == nil)
    }

    @Test func otherAttributesAreIgnored() throws {
        let cookie = try #require(parse("a=1; HttpOnly; SameSite=Strict; Priority=High"))
        #expect(
            cookie
                == StoredCookie(name: "a", value: "1", domain: "www.example.com", hostOnly: true, path: "/docs/guide"))
    }
}
