import FixtureServer
import Foundation
import Testing
import TroveTestSupport

/// `trove fetch` as a person checks an HTTP cache with it: one process per request, one cache directory,
/// a loopback origin; `-i` and `--json` show the status and the header fields of what came back.
@Suite struct FetchHTTPCachingTests {
    static func text(_ body: String, status: Int = 200, _ fields: [(String, String)]) -> FixtureServer.Route {
        .withFieldLines(
            fields.map { (name: $0.0, value: $0.1) },
            .response(status: status, headers: ["Content-Type": "text/plain"], body: Data(body.utf8)))
    }

    func withOrigin(
        _ routes: [String: FixtureServer.Route], _ body: (FixtureServer, CLIRunner) async throws -> Void
    ) async throws {
        let server = FixtureServer(routes: routes)
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        do {
            try await body(server, CLIRunner(cacheDirectory: work.appendingPathComponent("cache")))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func jsonAndIncludeShowTheStatusAndTheHeaderFields() async throws {
        try await withOrigin([
            "/r": Self.text("made", status: 201, [("Cache-Control", "max-age=3600"), ("X-A", "1"), ("X-A", "2")])
        ]) {
            server, cli in
            let url = server.url("/r").absoluteString
            let first = try await cli.run(["fetch", url, "--json"])
            let line = try #require(first.jsonLines.first, "\(first.stderr)")
            #expect(line["status"] as? String == "ok" && line["httpStatus"] as? Int == 201)
            let headers = try #require(line["headers"] as? [[String]])
            #expect(headers.contains(["X-A", "1"]) && headers.contains(["X-A", "2"]))
            #expect(headers.contains(["Cache-Control", "max-age=3600"]))

            // A cached answer: the stored status and fields, and its Age.
            let cached = try await cli.run(["fetch", url, "-i", "-o", "-"])
            #expect(cached.status == 0, "\(cached.stderr)")
            let head = cached.stdout.components(separatedBy: "\r\n\r\n")
            #expect(head.count == 2 && head[1] == "made")
            let lines = head[0].components(separatedBy: "\r\n")
            #expect(lines.first == "HTTP/1.1 201 Created")
            #expect(lines.contains("X-A: 1") && lines.contains("X-A: 2") && lines.contains { $0.hasPrefix("Age: ") })
            #expect(server.requestCount(for: "/r") == 1)
        }
    }

    @Test func aFailureShowsItsStatus() async throws {
        try await withOrigin(["/gone": Self.text("gone", status: 410, [])]) { server, cli in
            let gone = try await cli.run(["fetch", server.url("/gone").absoluteString, "--json"])
            #expect(gone.status == 1 && gone.jsonLines.first?["httpStatus"] as? Int == 410)
            let include = try await cli.run(["fetch", server.url("/gone").absoluteString, "-i", "--retry-failed"])
            #expect(include.stdout.hasPrefix("HTTP/1.1 410 Gone\r\n"))
        }
    }

    @Test func varyAcceptIsMatchedAcrossProcesses() async throws {
        try await withOrigin([
            "/img": .negotiated(
                header: "Accept",
                choices: [(containing: "image/webp", route: Self.text("webp", [("Cache-Control", "max-age=3600")]))],
                otherwise: Self.text("jpeg", [("Cache-Control", "max-age=3600")]))
        ]) { server, cli in
            let url = server.url("/img").absoluteString
            func fetch(_ accept: String) async throws -> (String?, String?) {
                let result = try await cli.run(["fetch", url, "--header", "Accept: \(accept)", "-o", "-"])
                let json = try await cli.run(["fetch", url, "--json", "--header", "Accept: \(accept)"])
                return (result.stdout, json.jsonLines.first?["source"] as? String)
            }
            let webp = try await fetch("image/webp,*/*"), jpeg = try await fetch("image/jpeg")
            #expect(webp.0 == "webp" && webp.1 == "disk")
            #expect(jpeg.0 == "jpeg" && jpeg.1 == "disk")
            #expect(server.requestCount(for: "/img") == 2)
        }
    }

    @Test func policyHTTPTakesTheRFCHeuristic() async throws {
        let modified = FixtureServer.httpDate(Date().addingTimeInterval(-10 * 86_400))
        let now = FixtureServer.httpDate(Date())
        try await withOrigin([
            "/old": Self.text("a", [("Last-Modified", modified), ("Date", now)]),
            "/none": Self.text("b", [("Date", now)])
        ]) { server, cli in
            for path in ["/old", "/none"] {
                for _ in 0..<2 { _ = try await cli.run(["fetch", server.url(path).absoluteString, "--policy", "http"]) }
            }
            #expect(server.requestCount(for: "/old") == 1)
            #expect(server.requestCount(for: "/none") == 2)
            let help = try await cli.run(["fetch", "--help"])
            #expect(help.stdout.contains("-i, --include") && help.stdout.contains("heuristic"))
        }
    }

    @Test func aPOSTInvalidatesTheURLForTheNextProcess() async throws {
        try await withOrigin(["/r": .withHeaders(["Cache-Control": "max-age=3600"], .echo)]) { server, cli in
            let url = server.url("/r").absoluteString
            let folder = try temporaryDirectory()
            defer { removeTemporaryDirectory(folder) }
            let body = folder.appendingPathComponent("body")
            try Data("abc".utf8).write(to: body)
            _ = try await cli.run(["fetch", url])
            let post = try await cli.run(["fetch", url, "--method", "POST", "--body", body.path, "-o", "-"])
            #expect(post.stdout == "POST abc")
            let after = try await cli.run(["fetch", url, "--json"])
            #expect(after.jsonLines.first?["source"] as? String == "network")
            #expect(server.requestLog(for: "/r").map(\.method) == ["GET", "POST", "GET"])
        }
    }

    @Test func fieldsOfTheConnectionAreNotStored() async throws {
        try await withOrigin([
            "/r": Self.text(
                "r",
                [
                    ("Cache-Control", "max-age=3600"), ("Connection", "X-Hop"), ("X-Hop", "1"), ("X-Kept", "2"),
                    ("Proxy-Authorization", "Basic c2VjcmV0")
                ])
        ]) { server, cli in
            let url = server.url("/r").absoluteString
            _ = try await cli.run(["fetch", url])
            let cached = try #require(try await cli.run(["fetch", url, "--json"]).jsonLines.first)
            #expect(cached["source"] as? String == "disk")
            let names = try #require(cached["headers"] as? [[String]]).map { $0[0].lowercased() }
            // RFC 9111 §3.1: what Connection names, and the proxy's credentials, describe one hop only.
            #expect(names.contains("x-kept") && !names.contains("x-hop") && !names.contains("proxy-authorization"))
            #expect(server.requestCount(for: "/r") == 1)
        }
    }

    @Test func mustUnderstandStoresAStatusTroveImplementsDespiteNoStore() async throws {
        let fields = [("Cache-Control", "max-age=3600, no-store, must-understand")]
        try await withOrigin([
            "/known": Self.text("known", fields),
            "/plain": Self.text("plain", [("Cache-Control", "max-age=3600, no-store")])
        ]) { server, cli in
            for path in ["/known", "/plain"] {
                for _ in 0..<2 { _ = try await cli.run(["fetch", server.url(path).absoluteString]) }
            }
            // RFC 9111 §5.2.2.3: a cache that implements the status ignores no-store; without must-understand it holds.
            #expect(server.requestCount(for: "/known") == 1)
            #expect(server.requestCount(for: "/plain") == 2)
        }
    }

    @Test func requestDirectivesAndConditionsComeFromHeaderOptions() async throws {
        try await withOrigin([
            "/r": Self.text("r", [("Cache-Control", "max-age=3600"), ("ETag", "\"v1\"")])
        ]) { server, cli in
            let url = server.url("/r").absoluteString
            // only-if-cached: a miss never reaches the origin and shows as the 504 RFC 9111 gives it.
            let miss = try await cli.run(["fetch", url, "--json", "--header", "Cache-Control: only-if-cached"])
            #expect(miss.status == 1 && miss.jsonLines.first?["httpStatus"] as? Int == 504)
            #expect(server.requestCount(for: "/r") == 0)
            _ = try await cli.run(["fetch", url])
            // The client's own condition, answered from the cache.
            let include = try await cli.run(["fetch", url, "-i", "--header", "If-None-Match: \"v1\""])
            #expect(include.stdout.hasPrefix("HTTP/1.1 304 Not Modified\r\n"), "\(include.stdout)")
            // A 304 leaves the copy the condition named as it was.
            let folder = try temporaryDirectory()
            defer { removeTemporaryDirectory(folder) }
            let copy = folder.appendingPathComponent("r")
            try Data("mine".utf8).write(to: copy)
            _ = try await cli.run(["fetch", url, "-o", copy.path, "--header", "If-None-Match: \"v1\""])
            #expect(try String(contentsOf: copy, encoding: .utf8) == "mine")
            let noCache = try await cli.run(["fetch", url, "--json", "--header", "Cache-Control: no-cache"])
            #expect(noCache.jsonLines.first?["httpStatus"] as? Int == 200)
            #expect(server.requestCount(for: "/r") == 2)
        }
    }
}
