import FixtureServer
import Foundation
import Testing
import Trove
import TroveTestSupport

/// A client's own conditional request answered by the cache (RFC 9111 §4.3.2): 304 with no body when the
/// stored response matches, the whole response when it does not.
@Suite struct HTTPConditionalAnswerTests {
    static let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
    static let route = textRoute(
        "body", [("Cache-Control", "max-age=3600"), ("ETag", "\"abc\""), ("Last-Modified", modified), ("X-Other", "1")])

    @Test func aMatchingIfNoneMatchGets304FromTheCache() async throws {
        try await withServerAndCache(["/r": Self.route]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            for condition in ["\"abc\"", "W/\"abc\"", "\"x\", \"abc\"", "*"] {
                let answer = try await fetchOnce(url, in: dir, headers: ["If-None-Match": condition])
                #expect(answer.status == 304 && answer.data.isEmpty && answer.source == .disk, "\(condition)")
                // The fields a 304 carries, and not the others.
                #expect(answer.field("etag") == "\"abc\"" && answer.field("cache-control") == "max-age=3600")
                #expect(
                    answer.field("age") != nil && answer.field("x-other") == nil && answer.field("content-type") == nil)
            }
            let changed = try await fetchOnce(url, in: dir, headers: ["If-None-Match": "\"other\""])
            #expect(changed.status == 200 && changed.text == "body" && changed.source == .disk)
            #expect(server.requestCount(for: "/r") == 1)
        }
    }

    @Test func ifModifiedSinceCountsOnlyWithoutIfNoneMatch() async throws {
        try await withServerAndCache(["/r": Self.route]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            let same = try await fetchOnce(url, in: dir, headers: ["If-Modified-Since": Self.modified])
            #expect(same.status == 304 && same.data.isEmpty)
            let later = try await fetchOnce(
                url, in: dir, headers: ["If-Modified-Since": "Mon, 07 Nov 1994 00:00:00 GMT"])
            #expect(later.status == 304)
            let earlier = try await fetchOnce(
                url, in: dir, headers: ["If-Modified-Since": "Sat, 05 Nov 1994 00:00:00 GMT"])
            #expect(earlier.status == 200 && earlier.text == "body")
            // A tag that differs decides, whatever the date says.
            let both = try await fetchOnce(
                url, in: dir, headers: ["If-None-Match": "\"other\"", "If-Modified-Since": Self.modified])
            #expect(both.status == 200 && both.text == "body")
            #expect(server.requestCount(for: "/r") == 1)
        }
    }

    @Test func memoryAnswersConditionsTooAndKeepsTheWholeResponse() async throws {
        try await withServerAndCache(["/r": Self.route]) { server, dir in
            let url = server.url("/r")
            let pipeline = try makeDataPipeline(dir)
            _ = try await pipeline.data(for: url)
            let answer = try await pipeline.data(for: DataRequest(url: url, headers: ["if-none-match": "\"abc\""]))
            #expect(answer.source == .memory && answer.status == 304 && answer.data.isEmpty)
            let whole = try await pipeline.data(for: url)
            #expect(whole.source == .memory && whole.status == 200 && whole.text == "body")
            #expect(server.requestCount(for: "/r") == 1)
        }
    }

    @Test func aStaleCopyConfirmedByTheOriginAnswersTheClientWith304() async throws {
        let stale = FixtureServer.Route.withFieldLines(
            [(name: "Cache-Control", value: "max-age=0")],
            .conditional(
                Data("body".utf8), contentType: "text/plain", lastModified: Date(timeIntervalSince1970: 784_111_777)))
        try await withServerAndCache(["/r": stale]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            let answer = try await fetchOnce(url, in: dir, headers: ["If-Modified-Since": Self.modified])
            #expect(answer.status == 304 && answer.data.isEmpty)
            // The cache revalidated with its own validators, then answered the client's condition.
            #expect(server.requestCount(for: "/r") == 2)
        }
    }

    @Test func aConditionalPOSTIsNotAnswered304() async throws {
        try await withServerAndCache(["/r": Self.route]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            let post = try await fetchOnce(url, in: dir, headers: ["If-None-Match": "\"abc\""], method: "POST")
            #expect(post.status == 200)
        }
    }

    @Test func onAMissTheConditionGoesToTheOriginAndItsAnswerComesBack() async throws {
        let route = FixtureServer.Route.withFieldLines(
            [(name: "Cache-Control", value: "max-age=3600")],
            .conditional(
                Data("body".utf8), contentType: "text/plain", lastModified: Date(timeIntervalSince1970: 784_111_777)))
        try await withServerAndCache(["/r": route]) { server, dir in
            let url = server.url("/r")
            // The origin's own tag, learnt from a pipeline with no cache.
            let tag = try #require(try await fetchOnce(url, in: dir, policy: .reloadIgnoringCache).field("etag"))
            let other = try temporaryDirectory()
            defer { removeTemporaryDirectory(other) }
            let notModified = try await fetchOnce(url, in: other, headers: ["If-None-Match": tag])
            #expect(notModified.status == 304 && notModified.data.isEmpty && notModified.source == .network)
            #expect(server.requestLog(for: "/r").last?.headers["if-none-match"] == tag)
            // Nothing was kept from the 304: the next plain request fetches the body.
            let whole = try await fetchOnce(url, in: other)
            #expect(whole.status == 200 && whole.text == "body" && whole.source == .network)
        }
    }

    @Test func aRevalidationAsksWithTheStoredValidatorsAlone() async throws {
        // Stored with a Last-Modified and no ETag, stale at once.
        let route = textRoute("body", [("Cache-Control", "max-age=0"), ("Last-Modified", Self.modified)])
        try await withServerAndCache(["/r": route]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            let answer = try await fetchOnce(url, in: dir, headers: ["If-None-Match": "\"client\""])
            // The origin judged the stored copy by its date alone; the client's tag was judged here.
            let sent = try #require(server.requestLog(for: "/r").last)
            #expect(sent.headers["if-none-match"] == nil && sent.headers["if-modified-since"] == Self.modified)
            #expect(answer.status == 200 && answer.text == "body")
        }
    }

    @Test func aStarOrADateMatchesAResponseWithoutTagOrLastModified() async throws {
        // The server dates its answers (`Date`), as every HTTP server must.
        let route = textRoute("body", [("Cache-Control", "max-age=3600")])
        try await withServerAndCache(["/r": route]) { server, dir in
            let url = server.url("/r")
            let first = try await fetchOnce(url, in: dir)
            #expect(first.field("last-modified") == nil && first.field("date") != nil)
            #expect(try await fetchOnce(url, in: dir, headers: ["If-None-Match": "*"]).status == 304)
            #expect(try await fetchOnce(url, in: dir, headers: ["If-None-Match": "\"a\""]).status == 200)
            // Without a Last-Modified the stored Date stands in for it (RFC 9111 §4.3.2).
            #expect(try await fetchOnce(url, in: dir, headers: ["If-Modified-Since": httpDate(60)]).status == 304)
            #expect(try await fetchOnce(url, in: dir, headers: ["If-Modified-Since": httpDate(-3600)]).status == 200)
            #expect(server.requestCount(for: "/r") == 1)
        }
    }

    /// An image request that carries a condition gets no 304 to decode: the fetch fails as before, and
    /// nothing is remembered against the URL.
    @Test func anImageRequestsConditionLeavesNoFailureBehind() async throws {
        let route = FixtureServer.Route.conditional(
            try pngData("badge.png"), contentType: "image/png", lastModified: Date(timeIntervalSince1970: 784_111_777))
        try await withServerAndCache(["/r.png": route]) { server, dir in
            let url = server.url("/r.png")
            let elsewhere = try temporaryDirectory()
            defer { removeTemporaryDirectory(elsewhere) }
            let tag = try #require(try await fetchOnce(url, in: elsewhere).field("etag"))
            let pipeline = try makePipeline(dir)
            await #expect(throws: TroveError.self) {
                try await pipeline.image(for: ImageRequest(url: url, headers: ["If-None-Match": tag]))
            }
            #expect(try await pipeline.image(for: url).image.width > 0)
        }
    }
}
