import FixtureServer
import Foundation
import Testing
import Trove
import TroveTestSupport

/// RFC 9111 §4.4: a non-error answer to an unsafe method invalidates the target URI, and the same-origin
/// targets of its Location and Content-Location, in every tier.
@Suite struct HTTPInvalidationTests {
    static let cached = FixtureServer.Route.withHeaders(["Cache-Control": "max-age=3600"], .echo)

    @Test(arguments: ["POST", "PUT", "DELETE", "PATCH"])
    func aSuccessfulUnsafeRequestMakesTheNextGETGoToTheOrigin(method: String) async throws {
        try await withServerAndCache(["/r": Self.cached]) { server, dir in
            let url = server.url("/r")
            let pipeline = try makeDataPipeline(dir)
            _ = try await pipeline.data(for: url)
            #expect(try await pipeline.data(for: url).source == .memory)
            var unsafe = DataRequest(url: url)
            unsafe.method = method
            unsafe.body = Data("abc".utf8)
            let answer = try await pipeline.data(for: unsafe)
            #expect(answer.text == "\(method) abc" && answer.status == 200)
            // Neither memory nor disk answers now.
            let after = try await pipeline.data(for: url)
            #expect(after.text == "GET " && after.source == .network)
            await pipeline.flush()
            #expect(server.requestLog(for: "/r").map(\.method) == ["GET", method, "GET"])
        }
    }

    @Test func aFailedUnsafeRequestLeavesTheStoredResponse() async throws {
        try await withServerAndCache(["/r": .sequence([Self.cached, .status(500), Self.cached])]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            await #expect(throws: TroveError.httpStatus(500, url: url.absoluteString)) {
                try await fetchOnce(url, in: dir, method: "POST", body: Data("abc".utf8))
            }
            #expect(try await fetchOnce(url, in: dir).source == .disk)
            #expect(server.requestCount(for: "/r") == 2)
        }
    }

    @Test func locationAndContentLocationOnTheSameOriginAreInvalidated() async throws {
        try await withServerAndCache([
            "/a": Self.cached, "/b": Self.cached, "/c": Self.cached,
            "/form": textRoute("made", status: 201, [("Location", "/a"), ("Content-Location", "b")])
        ]) { server, dir in
            for path in ["/a", "/b", "/c"] { _ = try await fetchOnce(server.url(path), in: dir) }
            let made = try await fetchOnce(server.url("/form"), in: dir, method: "POST", body: Data("x".utf8))
            #expect(made.status == 201 && made.field("location") == "/a")
            #expect(try await fetchOnce(server.url("/a"), in: dir).source == .network)
            #expect(try await fetchOnce(server.url("/b"), in: dir).source == .network)
            // Not named by the answer: untouched.
            #expect(try await fetchOnce(server.url("/c"), in: dir).source == .disk)
        }
    }

    @Test func anotherOriginsLocationIsNotInvalidated() async throws {
        try await withServerAndCache(["/a": Self.cached]) { server, dir in
            let other = FixtureServer()
            other.setRoute("/form", textRoute("made", status: 201, [("Location", server.url("/a").absoluteString)]))
            try await other.start()
            _ = try await fetchOnce(server.url("/a"), in: dir)
            _ = try await fetchOnce(other.url("/form"), in: dir, method: "POST", body: Data("x".utf8))
            await other.stop()
            #expect(try await fetchOnce(server.url("/a"), in: dir).source == .disk)
        }
    }

    /// A request that opted in to caching another method (`cachesOtherMethods`, an app's cache of POST
    /// queries) is taken as a query: its answer is kept and it invalidates nothing.
    @Test func anOptedInPOSTIsAQueryAndInvalidatesNothing() async throws {
        try await withServerAndCache(["/r": Self.cached]) { server, dir in
            let url = server.url("/r")
            _ = try await fetchOnce(url, in: dir)
            let pipeline = try makeDataPipeline(dir)
            var post = DataRequest(url: url)
            post.method = "POST"
            post.body = Data("abc".utf8)
            post.cachesOtherMethods = true
            #expect(try await pipeline.data(for: post).source == .network)
            #expect(try await pipeline.data(for: post).source == .memory)
            await pipeline.flush()
            #expect(try await fetchOnce(url, in: dir).source == .disk)
        }
    }
}
