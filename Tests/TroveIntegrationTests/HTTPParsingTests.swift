import FixtureServer
import Foundation
import Testing
import Trove
import TroveTestSupport

/// Header values read as RFC 9111 says, through the pipeline: an Expires that is not one valid HTTP-date
/// means expired, Age takes the first member of a list, and no-cache is never stood in for by a stale copy.
@Suite struct HTTPParsingTests {
    @Test(arguments: [
        "Thu, 18 Aug 50 02:01:18 GMT", "Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18-Aug-2050 02:01:18 GMT",
        "Thu, 18 Aug 2050 2:01:18 GMT"
    ])
    func anExpiresOutsideTheGrammarMeansExpired(expires: String) async throws {
        try await withServerAndCache(["/r": textRoute("a", [("Expires", expires), ("Date", httpDate(0))])]) {
            server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            #expect(try await fetchOnce(url, in: dir).source == .network)
        }
    }

    @Test func anExpiresOnTwoLinesMeansExpired() async throws {
        try await withServerAndCache([
            "/r": textRoute("a", [("Expires", httpDate(3600)), ("Expires", httpDate(3600)), ("Date", httpDate(0))])
        ]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            #expect(try await fetchOnce(url, in: dir).source == .network)
        }
    }

    @Test func aListValuedAgeCountsItsFirstMember() async throws {
        try await withServerAndCache([
            "/old": textRoute("a", [("Cache-Control", "max-age=3600"), ("Age", "7200, 0")]),
            "/young": textRoute("a", [("Cache-Control", "max-age=3600"), ("Age", "60, 7200")])
        ]) { server, dir in
            _ = try await fetchOnce(server.url("/old"), in: dir)
            #expect(try await fetchOnce(server.url("/old"), in: dir).source == .network)
            _ = try await fetchOnce(server.url("/young"), in: dir)
            let cached = try await fetchOnce(server.url("/young"), in: dir)
            #expect(cached.source == .disk)
            // The answer says how old the copy is: at least the 60 s it came with.
            #expect(Int(cached.field("age") ?? "") ?? 0 >= 60)
        }
    }

    @Test func aNoCacheCopyIsNotServedWhenTheOriginDropsTheConnection() async throws {
        let route = FixtureServer.Route.sequence([
            textRoute("a", [("Cache-Control", "no-cache"), ("ETag", "\"a\"")]),
            .cutMidBody(Data("abc".utf8), after: 0)
        ])
        try await withServerAndCache(["/r": route]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            await #expect(throws: TroveError.self) { try await fetchOnce(url, in: dir) }
            #expect(server.requestCount(for: "/r") == 2)
        }
    }
}
