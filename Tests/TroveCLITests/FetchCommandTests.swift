import FixtureServer
import Foundation
import Testing
import TroveTestSupport

/// `trove fetch`: plain data through the DataPipeline from the command line.
@Suite struct FetchCommandTests {
    @Test func aSecondFetchOfAJSONURLComesFromDisk() async throws {
        let json = Data("{\"items\": [1, 2, 3]}".utf8)
        let server = FixtureServer()
        server.setRoute("/feed.json", .file(json, contentType: "application/json"))
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))
        let url = server.url("/feed.json").absoluteString
        let saved = work.appendingPathComponent("feed.json")

        let first = try await cli.run(["fetch", url, "--json"])
        let second = try await cli.run(["fetch", url, "--json", "-o", saved.path])
        let missing = try await cli.run(["fetch", server.url("/nope.json").absoluteString, "--json"])
        await server.stop()

        #expect(first.status == 0, "\(first.stderr)")
        let a = try #require(first.jsonLines.first), b = try #require(second.jsonLines.first)
        #expect(a["url"] as? String == url && a["status"] as? String == "ok" && a["source"] as? String == "network")
        #expect(a["bytes"] as? Int == json.count && a["stale"] as? Bool == false && a["ms"] is Double)
        #expect(b["source"] as? String == "disk" && b["bytes"] as? Int == json.count)
        #expect(try Data(contentsOf: saved) == json)
        #expect(server.requestCount(for: "/feed.json") == 1)
        // A failure: exit 1, the message on stderr, a line that says so on stdout.
        #expect(missing.status == 1 && missing.stderr.contains("HTTP 404"))
        #expect(missing.jsonLines.first?["status"] as? String == "failed")
        #expect((missing.jsonLines.first?["error"] as? String)?.contains("HTTP 404") == true)
    }

    @Test func cookiesAreSeededByTheFlagAndWhatResponsesSetGoesBack() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/images/")
        server.setRoute("/shop/login", .settingCookies(["session=abc; Path=/shop"], .echo))
        server.setRoute("/shop/cart", .echo)
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))
        let origin = server.url("/").absoluteString
        let seed = ["--cookies", "\(origin) theme=dark; Path=/"]

        let fetch = try await cli.run(
            ["fetch", server.url("/shop/login").absoluteString, server.url("/shop/cart").absoluteString] + seed)
        let get = try await cli.run(["get", server.url("/images/badge.png").absoluteString, "--json"] + seed)
        let list = work.appendingPathComponent("urls.txt")
        try Data((server.url("/images/chelsea.png").absoluteString + "\n").utf8).write(to: list)
        let prefetch = try await cli.run(["prefetch", list.path] + seed)
        let without = try await cli.run(["fetch", server.url("/shop/cart?again").absoluteString])
        let bad = try await cli.run(["fetch", server.url("/shop/cart").absoluteString, "--cookies", "example.com a=1"])
        await server.stop()

        #expect(fetch.status == 0 && get.status == 0 && prefetch.status == 0, "\(fetch.stderr)\(get.stderr)")
        #expect(without.status == 0, "\(without.stderr)\(prefetch.stderr)")
        let cookies = server.requestLog.map { ($0.path, $0.header("cookie")) }
        try #require(cookies.count == 5, "\(cookies)")
        // The seed goes everywhere on the host; the session set by /shop/login goes back to /shop in that run.
        #expect(cookies[0] == ("/shop/login", "theme=dark"))
        #expect(cookies[1] == ("/shop/cart", "session=abc; theme=dark"))
        #expect(cookies[2] == ("/images/badge.png", "theme=dark"))
        #expect(cookies[3] == ("/images/chelsea.png", "theme=dark"))
        // A run without --cookies sends none: nothing outlives the run.
        #expect(cookies[4] == ("/shop/cart", nil))
        #expect(bad.status == 2 && bad.stderr.contains("--cookies: cookies are given by the URL"), "\(bad.stderr)")
    }

    @Test func aCachedPostReachesTheOriginOncePerBody() async throws {
        let server = FixtureServer()
        server.setRoute("/search", .echo)
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))
        let url = server.url("/search").absoluteString
        let cats = work.appendingPathComponent("cats.json"), dogs = work.appendingPathComponent("dogs.json")
        try Data("{\"q\": \"cats\"}".utf8).write(to: cats)
        try Data("{\"q\": \"dogs\"}".utf8).write(to: dogs)
        func post(_ body: URL, _ extra: [String] = []) async throws -> CLIRunner.Result {
            try await cli.run(
                ["fetch", url, "--method", "POST", "--body", body.path, "--header", "Content-Type: application/json"]
                    + extra + ["--json"])
        }

        let first = try await post(cats, ["--cache-non-get"])
        let again = try await post(cats, ["--cache-non-get"])
        let other = try await post(dogs, ["--cache-non-get"])
        let uncached = try await post(cats)
        await server.stop()

        #expect(first.jsonLines.first?["source"] as? String == "network", "\(first.stderr)")
        #expect(again.jsonLines.first?["source"] as? String == "disk")
        #expect(other.jsonLines.first?["source"] as? String == "network")
        #expect(uncached.jsonLines.first?["source"] as? String == "network")
        let log = server.requestLog(for: "/search")
        #expect(log.map(\.method) == ["POST", "POST", "POST"])
        #expect(
            log.map { String(decoding: $0.body, as: UTF8.self) } == [
                "{\"q\": \"cats\"}", "{\"q\": \"dogs\"}", "{\"q\": \"cats\"}"
            ])
        #expect(log.first?.headers["content-type"] == "application/json")
    }

    @Test func badUsageExitsTwo() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work)
        let header = try await cli.run(["fetch", "http://127.0.0.1:1/x", "--header", "no colon"])
        #expect(header.status == 2 && header.stderr.contains("--header must be 'Name: value'"))
        let body = try await cli.run([
            "fetch", "http://127.0.0.1:1/x", "--body", work.appendingPathComponent("none").path
        ])
        #expect(body.status == 2 && body.stderr.contains("cannot read the body file"))
        let method = try await cli.run(["fetch", "http://127.0.0.1:1/x", "--method", "P OST"])
        #expect(method.status == 2 && method.stderr.contains("--method must be an HTTP method"))
    }
}
