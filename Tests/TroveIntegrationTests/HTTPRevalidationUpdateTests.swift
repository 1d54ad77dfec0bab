import FixtureServer
import Foundation
import Testing
import Trove
import TroveTestSupport

/// RFC 9111 §4.3.4: a 304 updates the stored response's header fields, and its freshness is worked out
/// from the response so updated.
@Suite struct HTTPRevalidationUpdateTests {
    static func stored(_ fields: [(String, String)]) -> FixtureServer.Route {
        textRoute("body", [("ETag", "\"e1\"")] + fields)
    }

    static func notModified(_ fields: [(String, String)]) -> FixtureServer.Route {
        .withFieldLines(fields.map { (name: $0.0, value: $0.1) }, .response(status: 304, headers: [:], body: Data()))
    }

    @Test func the304sFieldsReplaceTheStoredOnesInTheAnswerAndOnDisk() async throws {
        try await withServerAndCache([
            "/r": .sequence([
                Self.stored([("Cache-Control", "max-age=0"), ("X-Test", "A"), ("X-Kept", "k")]),
                Self.notModified([("Cache-Control", "max-age=3600"), ("X-Test", "B"), ("ETag", "\"e1\"")])
            ])
        ]) { server, dir in
            let url = server.url("/r")
            #expect(try await fetchOnce(url, in: dir).field("x-test") == "A")
            let revalidated = try await fetchOnce(url, in: dir)
            #expect(server.requestLog(for: "/r").last?.header("if-none-match") == "\"e1\"")
            #expect(revalidated.text == "body" && revalidated.status == 200)
            #expect(revalidated.field("x-test") == "B" && revalidated.field("x-kept") == "k")
            #expect(revalidated.field("cache-control") == "max-age=3600")
            // Stored so: the next answer is from disk, fresh, with the updated fields and an Age.
            let cached = try await fetchOnce(url, in: dir)
            #expect(cached.source == .disk && cached.field("x-test") == "B" && cached.field("age") != nil)
            #expect(server.requestCount(for: "/r") == 2)
        }
    }

    /// The regression: a 304 without Cache-Control made the copy fresh for the disk's 7 days; the stored
    /// `max-age=0` still holds, so the next use asks again.
    @Test func a304WithoutCacheControlNeverStretchesFreshnessPastTheRules() async throws {
        try await withServerAndCache([
            "/r": .sequence([Self.stored([("Cache-Control", "max-age=0")]), Self.notModified([("X-Note", "same")])])
        ]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            #expect(try await fetchOnce(url, in: dir).text == "body")
            #expect(try await fetchOnce(url, in: dir).text == "body")
            #expect(server.requestCount(for: "/r") == 3)
            let entry = try #require(
                try await makeDataPipeline(dir).diskCache?.entry(forKey: url.absoluteString, includingStale: true))
            let expires = try #require(entry.metadata.expires)
            #expect(expires.timeIntervalSince(entry.metadata.created) < 1)
        }
    }

    @Test func a304sExpiresIsCountedFromItsOwnDate() async throws {
        try await withServerAndCache([
            "/r": .sequence([
                Self.stored([("Cache-Control", "no-cache")]),
                Self.notModified([("Cache-Control", "public"), ("Expires", httpDate(600)), ("Date", httpDate(0))])
            ])
        ]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            _ = try await fetchOnce(url, in: dir)
            #expect(try await fetchOnce(url, in: dir).source == .disk)
            let entry = try #require(try await makeDataPipeline(dir).diskCache?.entry(forKey: url.absoluteString))
            let lifetime = try #require(entry.metadata.expires).timeIntervalSince(entry.metadata.created)
            #expect(lifetime > 590 && lifetime <= 601)
        }
    }

    @Test func aNoStore304RemovesTheStoredResponse() async throws {
        try await withServerAndCache([
            "/r": .sequence([
                Self.stored([("Cache-Control", "max-age=0")]), Self.notModified([("Cache-Control", "no-store")])
            ])
        ]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            #expect(try await fetchOnce(url, in: dir).text == "body")
            #expect(
                try await makeDataPipeline(dir).diskCache?.entry(forKey: url.absoluteString, includingStale: true)
                    == nil)
        }
    }
}
