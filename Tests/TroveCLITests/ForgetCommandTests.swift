import FixtureServer
import Foundation
import Testing
import TroveTestSupport

/// `prefetch --retry-failed`, `cache forget` and the failed-URL memory going with `cache clear`.
@Suite struct ForgetCommandTests {
    @Test func prefetchRetriesARememberedFailureWhenAsked() async throws {
        let badge = try Data(contentsOf: Fixtures.images.appendingPathComponent("badge.png"))
        let server = FixtureServer()
        server.setRoute("/late.png", .sequence([.status(404), .file(badge, contentType: "image/png")]))
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let list = work.appendingPathComponent("urls.txt")
        try server.url("/late.png").absoluteString.write(to: list, atomically: true, encoding: .utf8)
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))

        let first = try await cli.run(["prefetch", list.path, "--json"])
        let remembered = try await cli.run(["prefetch", list.path, "--json"])
        let retried = try await cli.run(["prefetch", list.path, "--retry-failed", "--json"])
        await server.stop()

        #expect(first.status == 1 && first.stderr.contains("HTTP 404"))
        // The message names a flag prefetch has.
        #expect(
            remembered.status == 1 && remembered.stderr.contains("prefetch: --retry-failed"), "\(remembered.stderr)")
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(retried.jsonLines.first?["fetched"] as? Int == 1)
        #expect(server.requestCount(for: "/late.png") == 2)
    }

    @Test func afterForgettingATransformedGetComesFromTheNetwork() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work)
        let url = server.url("/badge.png").absoluteString
        let get = ["get", url, "--transform", "resize:w=32,h=32", "--json"]

        let cold = try await cli.run(get)
        let warm = try await cli.run(get)
        let forget = try await cli.run(["cache", "forget", url, "--json"])
        let again = try await cli.run(get)
        let text = try await cli.run(["cache", "forget", url])
        await server.stop()

        #expect(cold.jsonLines.first?["source"] as? String == "network")
        #expect(warm.jsonLines.first?["source"] as? String == "disk")
        #expect(forget.status == 0, "\(forget.stderr)")
        let report = try #require(forget.jsonLines.first)
        // The original and its one processed variant.
        #expect(report["url"] as? String == url && report["disk"] as? Int == 2 && report["failures"] as? Int == 0)
        #expect(again.jsonLines.first?["source"] as? String == "network")
        #expect(server.requestCount(for: "/badge.png") == 2)
        #expect(text.stdout.contains("\(url): 2 on disk"), "\(text.stdout)")
    }

    @Test func clearingTheCacheClearsTheRememberedFailures() async throws {
        let server = FixtureServer()
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work)
        let url = server.url("/missing.png").absoluteString

        let first = try await cli.run(["get", url])
        let remembered = try await cli.run(["get", url])
        let clear = try await cli.run(["cache", "clear", "--json"])
        let after = try await cli.run(["get", url])
        await server.stop()

        #expect(first.status == 1 && remembered.status == 1 && after.status == 1)
        #expect(remembered.stderr.contains("failed") && remembered.stderr.contains("ago with HTTP 404"))
        #expect(clear.jsonLines.first?["failures"] as? Int == 1)
        #expect(after.stderr.contains("HTTP 404 for \(url)"), "\(after.stderr)")
        #expect(server.requestCount(for: "/missing.png") == 2)
    }

    @Test func aMemoryOnlyGetLeavesNoFileInTheCacheDirectory() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cache = work.appendingPathComponent("cache")
        let cli = CLIRunner(cacheDirectory: cache)
        let found = server.url("/badge.png").absoluteString, missing = server.url("/nope.png").absoluteString

        let ok = try await cli.run(["get", found, "--memory-only", "--json"])
        let failed = try await cli.run(["get", missing, "--memory-only"])
        let again = try await cli.run(["get", missing, "--memory-only"])
        await server.stop()

        #expect(ok.status == 0 && ok.jsonLines.first?["source"] as? String == "network", "\(ok.stderr)")
        #expect(failed.status == 1 && failed.stderr.contains("HTTP 404"))
        // Nothing remembered across processes: the second run asked the origin again.
        #expect(again.stderr.contains("HTTP 404 for \(missing)") && server.requestCount(for: "/nope.png") == 2)
        let files = FileManager.default.enumerator(atPath: cache.path)?.allObjects as? [String] ?? []
        #expect(files.isEmpty, "\(files)")
    }
}
