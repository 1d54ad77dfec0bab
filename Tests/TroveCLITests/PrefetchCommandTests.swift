import FixtureServer
import Foundation
import Testing
import TroveTestSupport

@Suite struct PrefetchCommandTests {
    @Test func countsAreExactAndASecondRunSendsNothing() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let list = work.appendingPathComponent("urls.txt")
        let present = ["badge.png", "tiles.png", "chelsea.png"].map { server.url("/\($0)").absoluteString }
        let missing = ["nope.png", "gone/also-missing.png"].map { server.url("/\($0)").absoluteString }
        try (["# thumbnails for the landing page", ""] + present + missing + [present[0]])
            .joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))

        let first = try await cli.run(["prefetch", list.path, "--json"])
        let requestsAfterFirst = server.requests.count
        let second = try await cli.run(["prefetch", list.path, "--json"])
        await server.stop()

        // A failed URL is a failed fetch: exit 1, each failure named on stderr, the summary still on stdout.
        #expect(first.status == 1)
        #expect(second.status == 1)
        for url in missing { #expect(first.stderr.contains("HTTP 404 for \(url)")) }
        let a = try #require(first.jsonLines.first), b = try #require(second.jsonLines.first)
        #expect(a["total"] as? Int == 6)
        #expect(a["failed"] as? Int == 2)
        // The duplicate line is either coalesced with its twin or served from the cache it filled.
        #expect((a["fetched"] as? Int ?? 0) + (a["cached"] as? Int ?? 0) == 4)
        #expect((a["fetched"] as? Int ?? 0) >= 3)
        #expect(b["total"] as? Int == 6)
        #expect(b["fetched"] as? Int == 0)
        #expect(b["cached"] as? Int == 4)
        #expect(b["failed"] as? Int == 2)
        #expect(requestsAfterFirst == 5)
        #expect(server.requests.count == requestsAfterFirst)
    }

    @Test func progressJSONGivesOneLinePerURLThenTheSummary() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let list = work.appendingPathComponent("urls.txt")
        let urls = ["badge.png", "tiles.png", "nope.png"].map { server.url("/\($0)").absoluteString }
        try urls.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))

        let run = try await cli.run(["prefetch", list.path, "--progress", "json"])
        await server.stop()

        #expect(run.status == 1)
        let lines = run.jsonLines
        #expect(lines.count == 4 && run.stdout.split(separator: "\n").count == 4, "\(run.stdout)")
        let perURL = lines.dropLast()
        #expect(perURL.compactMap { $0["url"] as? String }.sorted() == urls.sorted())
        for line in perURL {
            let failed = line["url"] as? String == urls[2]
            #expect(line["status"] as? String == (failed ? "failed" : "ok"))
            #expect(line["ms"] is Double)
            if failed {
                #expect((line["error"] as? String)?.contains("HTTP 404") == true && line["source"] == nil)
            } else {
                #expect(line["source"] as? String == "network" && (line["bytes"] as? Int ?? 0) > 0)
            }
        }
        let summary = try #require(lines.last)
        #expect(summary["total"] as? Int == 3 && summary["fetched"] as? Int == 2 && summary["failed"] as? Int == 1)
    }

    @Test func readsStandardInputAndRejectsBadConcurrency() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work)
        let bad = try await cli.run(["prefetch", "-", "--concurrency", "0"])
        #expect(bad.status == 2)
        let empty = try await cli.run(["prefetch", work.appendingPathComponent("missing.txt").path])
        #expect(empty.status == 2)
        #expect(empty.stderr.contains("cannot read"))
    }
}

@Suite struct DataPrefetchCommandTests {
    @Test func dataPrefetchWarmsPlainURLsThatAnImagePrefetchRefuses() async throws {
        let server = FixtureServer()
        server.setRoute("/feed.json", .file(Data("{\"items\": [1, 2, 3]}".utf8), contentType: "application/json"))
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let list = work.appendingPathComponent("urls.txt")
        try server.url("/feed.json").absoluteString.write(to: list, atomically: true, encoding: .utf8)
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))
        let asImages = try await cli.run(["prefetch", list.path, "--json"])
        let asData = try await cli.run(["prefetch", list.path, "--data", "--json"])
        let again = try await cli.run(["prefetch", list.path, "--data", "--json"])
        await server.stop()
        #expect(asImages.status == 1 && asImages.stderr.contains("not an image"))
        #expect(asData.status == 0, "stderr: \(asData.stderr)")
        #expect(asData.jsonLines.first?["fetched"] as? Int == 1)
        #expect(again.jsonLines.first?["cached"] as? Int == 1)
        #expect(server.requests == ["/feed.json", "/feed.json"])
    }
}
