import Foundation
import Testing
import TroveCore

@Suite struct HTTPDateTests {
    /// 1994-11-06 08:49:37 UTC, RFC 9110's example, as seconds since 1970.
    static let example = Date(timeIntervalSince1970: 784_111_777)

    @Test(arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"])
    func everyFormARecipientMustAcceptReadsTheSameInstant(text: String) {
        #expect(HTTPDate.parse(text) == Self.example)
    }

    @Test func leapDaysAndTheNewCenturyCount() {
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 00:00:00 GMT") == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(HTTPDate.parse("Sat, 01 Jan 2000 00:00:00 GMT") == Date(timeIntervalSince1970: 946_684_800))
    }

    @Test(arguments: [
        "0", "", "yesterday", "Sun, 06 Nov 1994", "Sun, 32 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT"
    ])
    func anythingElseIsNotADate(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}

@Suite struct CacheDirectivesTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func read(_ cacheControl: String? = nil, expires: String? = nil, date: String? = nil, age: String? = nil)
        -> CacheDirectives
    {
        CacheDirectives(cacheControl: cacheControl, expires: expires, date: date, age: age, receivedAt: now)
    }

    func http(_ offset: TimeInterval) -> String {
        // Formats now+offset as an IMF-fixdate through the parser's own inverse, checked by the date tests.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: now.addingTimeInterval(offset))
    }

    @Test func maxAgeGivesTheLifetimeLessTheAge() {
        #expect(read("max-age=2").freshness == .seconds(2))
        #expect(read("public, MAX-AGE=\"60\"").freshness == .seconds(60))
        #expect(read("max-age=60", age: "15").freshness == .seconds(45))
        #expect(read("max-age=60", age: "600").freshness == .zero)
        // Date ten seconds behind the receipt: the response is already ten seconds old.
        #expect(read("max-age=60", date: http(-10)).freshness == .seconds(50))
    }

    @Test func maxAgeWinsOverExpiresAndExpiresCountsFromDate() {
        #expect(read("max-age=5", expires: http(3600)).freshness == .seconds(5))
        #expect(read(expires: http(120), date: http(0)).freshness == .seconds(120))
        #expect(read(expires: "0").freshness == .zero)  // invalid Expires: already stale
        #expect(read("max-age=abc").freshness == .zero)
    }

    @Test func noStoreNoCacheAndMustRevalidateAreHeard() {
        #expect(read("no-store").noStore)
        let noCache = read("no-cache, max-age=600")
        #expect(noCache.noCache && noCache.freshness == .zero)
        let strict = read("max-age=60, must-revalidate")
        #expect(strict.mustRevalidate && strict.freshness == .seconds(60))
    }

    @Test func silenceLeavesTheDefaultToTheConfiguration() {
        #expect(read() == .none)
        #expect(read("public").freshness == nil)
    }
}
