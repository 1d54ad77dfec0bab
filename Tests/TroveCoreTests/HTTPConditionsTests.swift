import Foundation
import Testing

@testable import TroveCore

@Suite struct HTTPConditionsTests {
    @Test func ifNoneMatchListsWeakFormsAndStar() {
        let tag = "\"abc\""
        #expect(HTTPConditions.ifNoneMatch("\"abc\"", matches: tag))
        #expect(HTTPConditions.ifNoneMatch("\"x\", W/\"abc\"", matches: tag))
        #expect(HTTPConditions.ifNoneMatch("*", matches: tag))
        #expect(!HTTPConditions.ifNoneMatch("\"abcd\", \"ab\"", matches: tag))
        // Weak comparison: the stored tag's W/ does not matter either, in either case.
        #expect(HTTPConditions.ifNoneMatch("\"abc\"", matches: "W/\"abc\""))
        #expect(HTTPConditions.ifNoneMatch("w/\"abc\"", matches: "w/\"abc\""))
    }

    @Test func unquotedTagsMatchTheirQuotedForms() {
        #expect(HTTPConditions.ifNoneMatch("abc", matches: "\"abc\""))
        #expect(HTTPConditions.ifNoneMatch("\"abc\"", matches: "abc"))
        #expect(HTTPConditions.ifNoneMatch("abc", matches: "abc"))
        #expect(!HTTPConditions.ifNoneMatch("abc", matches: "\"abcd\""))
    }

    @Test func ifNoneMatchDecidesWheneverItIsSent() {
        let modified = "Sun, 06 Nov 1994 08:49:37 GMT", later = "Mon, 07 Nov 1994 08:49:37 GMT"
        // A matching tag wins over a date that says changed, and a tag that differs over one that says unchanged.
        #expect(
            HTTPConditions.notModified(
                ifNoneMatch: "\"a\"", ifModifiedSince: "Sat, 05 Nov 1994 08:49:37 GMT", entityTag: "\"a\"",
                lastModified: modified))
        #expect(
            !HTTPConditions.notModified(
                ifNoneMatch: "\"b\"", ifModifiedSince: later, entityTag: "\"a\"", lastModified: modified))
        // Against a response without a tag, only `*` matches.
        #expect(
            !HTTPConditions.notModified(
                ifNoneMatch: "\"a\"", ifModifiedSince: later, entityTag: nil, lastModified: modified))
        #expect(HTTPConditions.notModified(ifNoneMatch: " * ", ifModifiedSince: nil, entityTag: nil, lastModified: nil))
        #expect(
            !HTTPConditions.notModified(ifNoneMatch: "\"\"", ifModifiedSince: nil, entityTag: nil, lastModified: nil))
    }

    @Test func ifModifiedSinceComparesDates() {
        let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
        func unchanged(since: String?, lastModified: String? = modified) -> Bool {
            HTTPConditions.notModified(
                ifNoneMatch: nil, ifModifiedSince: since, entityTag: "\"a\"", lastModified: lastModified)
        }
        #expect(unchanged(since: modified))
        #expect(unchanged(since: "Mon, 07 Nov 1994 08:49:37 GMT"))
        #expect(!unchanged(since: "Sat, 05 Nov 1994 08:49:37 GMT"))
        #expect(!unchanged(since: "yesterday"))
        #expect(!unchanged(since: nil))
        #expect(!unchanged(since: modified, lastModified: nil))
    }
}
