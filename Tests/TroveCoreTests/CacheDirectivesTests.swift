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

    /// RFC 9110 §5.6.7's grammar, exactly: these are the shapes of Expires the RFC does not allow, each of
    /// which must read as no date (so an Expires written so means "already expired").
    @Test(arguments: [
        "Thu, 18 Aug 50 02:01:18 GMT",  // a two-digit year after a short weekday
        "Thu 18 Aug 2050 02:01:18 GMT",  // no comma
        "Thu, 18-Aug-2050 02:01:18 GMT",  // dashes in an IMF-fixdate
        "Thu, 18 Aug 2050 2:01:18 GMT",  // a one-digit hour
        "Thu, 18 Aug 2050 02.01.18 GMT",  // periods in the time
        "Thu, 18  Aug  2050 02:01:18 GMT",  // two spaces
        "Thu, 18 Aug 2050 02:01:18 UTC"  // another zone
    ])
    func shapesTheGrammarDoesNotAllowAreNotDates(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func namesAndTheZoneReadInAnyCase() {
        #expect(HTTPDate.parse("SUN, 06 NOV 1994 08:49:37 gmt") == Self.example)
    }

    @Test func cookiesKeepTheirLooseReading() {
        #expect(HTTPDate.parseLoosely("Sun, 06-Nov-1994 08:49:37 GMT") == Self.example)
        #expect(HTTPDate.parseLoosely("Sun, 06 Nov 94 08:49:37 GMT") == Self.example)
    }
}

@Suite struct CacheDirectivesTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func read(_ cacheControl: String? = nil, expires: String? = nil, date: String? = nil, age: String? = nil)
        -> CacheDirectives
    {
        CacheDirectives(cacheControl: cacheControl, expires: expires, date: date, age: age, receivedAt: now)
    }

    @Test func aQualifiedNoCacheKeepsTheResponseReusableAndItsFieldsOutOfTheStoredCopy() {
        let qualified = read("no-cache=\"a, B\", max-age=60")
        #expect(!qualified.noCache && qualified.freshness == .seconds(60))
        #expect(read("no-cache, max-age=60").noCache && read("no-cache=\"\"").noCache)
        // A field the cache reads itself cannot be left out: that counts as plain no-cache, and is kept.
        #expect(read("no-cache=\"vary, a\", max-age=60").noCache)
        let keyed = [("Cache-Control", "no-cache=\"Vary\""), ("Vary", "Accept")].map {
            HeaderField(name: $0.0, value: $0.1)
        }
        #expect(keyed.storedWithResponse.count == 2)
        let fields = [("Cache-Control", "no-cache=\"a, B\""), ("a", "1"), ("b", "2"), ("c", "3")].map {
            HeaderField(name: $0.0, value: $0.1)
        }
        #expect(fields.storedWithResponse.map(\.name) == ["Cache-Control", "c"])
        #expect(read("max-age=5, stale-while-revalidate=30").staleWhileRevalidate == .seconds(30))
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

    func read(_ fields: [(String, String)]) -> CacheDirectives {
        CacheDirectives(fields: fields.map { HeaderField(name: $0.0, value: $0.1) }, receivedAt: now)
    }

    @Test func anExpiresOnSeveralLinesOrOutsideTheGrammarIsStale() {
        #expect(read(expires: http(3600)).freshness == .seconds(3600))
        #expect(read([("Expires", http(3600)), ("Expires", http(3600))]).freshness == .zero)
        #expect(read(expires: "Thu, 18 Aug 50 02:01:18 GMT").freshness == .zero)
        #expect(read(expires: "Thu, 18-Aug-2050 02:01:18 GMT").freshness == .zero)
    }

    @Test func ageTakesTheFirstMemberOfItsFirstLine() {
        #expect(read("max-age=3600", age: "60, 30").freshness == .seconds(3540))
        #expect(read("max-age=3600", age: "0,7200").freshness == .seconds(3600))
        #expect(read([("Cache-Control", "max-age=3600"), ("Age", "7200"), ("Age", "0")]).freshness == .zero)
        // Not delta-seconds: ignored.
        #expect(read("max-age=3600", age: "abc").freshness == .seconds(3600))
        #expect(read("max-age=3600", age: "-7200").freshness == .seconds(3600))
    }

    @Test func theFirstMaxAgeCountsAndTheMostRestrictiveDirectiveWins() {
        #expect(read("max-age=1800, max-age=1").freshness == .seconds(1800))
        #expect(read([("Cache-Control", "max-age=1"), ("Cache-Control", "max-age=1800")]).freshness == .seconds(1))
        #expect(read("max-age=600, no-cache").freshness == .zero)
        #expect(read("no-store, max-age=600").noStore)
    }

    @Test func quotedStringsAndSpacingAreReadByTheGrammar() {
        // A quoted argument's text, commas and all, is not a directive of its own.
        #expect(read(#"extension="max-age=3600", max-age=1"#).freshness == .seconds(1))
        #expect(read(#"ext="a, max-age=3600", max-age=2"#).freshness == .seconds(2))
        // No space is allowed before "=" nor after it: either spoils max-age, and a spoilt max-age is stale
        // (without one, the configuration's default lifetime would apply).
        #expect(read("max-age =3600").freshness == .zero)
        #expect(read("max-age= 3600").freshness == .zero)
        #expect(read("max-age =3600, max-age=60").freshness == .zero)
        #expect(read("no-store =1").noStore)
        // An empty value, not none: a request's spaced `max-stale =5` must not read as "any staleness".
        #expect(CacheDirectives.directives(in: "max-stale =5").map(\.value) == [""])
        #expect(read("max-age='3600'").freshness == .zero)
        #expect(read("max-age=003600").freshness == .seconds(3600))
        #expect(read("public").isPublic)
    }

    @Test func silenceLeavesTheDefaultToTheConfiguration() {
        #expect(read() == .none)
        #expect(read("public").freshness == nil)
    }

    /// A fetcher plugin describes a response through `ResponseMetadata`'s public initialiser: the caching
    /// headers among its fields are read, else its `cacheControl`, else there are none.
    @Test func aFetchersMetadataIsReadForItsCachingHeaders() throws {
        let url = try #require(URL(string: "https://example.com/a.png"))
        let fields = [HeaderField(name: "Cache-Control", value: "max-age=60, must-revalidate")]
        let fromFields = ResponseMetadata(url: url, headerFields: fields).directives
        #expect(fromFields.freshness == .seconds(60) && fromFields.mustRevalidate)
        #expect(ResponseMetadata(url: url, cacheControl: "no-store").directives.noStore)
        #expect(ResponseMetadata(url: url).directives == .none)
    }
}
