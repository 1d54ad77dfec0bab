import FixtureServer
import Foundation
import Testing
import TroveTestSupport

/// `trove get` as a user runs it, against a real HTTP server on 127.0.0.1.
@Suite struct GetCommandTests {
    /// Disk writes are write-behind; `trove get` flushes them before it exits. Each entry is fsynced here,
    /// and a processed result is stored just before it is delivered, so without that flush the process
    /// would end with writes still queued.
    @Test func aPriorityIsAcceptedByNameAndAnUnknownOneIsBadUsage() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work)
        let url = server.url("/badge.png").absoluteString

        let urgent = try await cli.run(["get", url, "--priority", "very-high", "--json"])
        let unknown = try await cli.run(["get", url, "--priority", "urgent"])
        await server.stop()

        #expect(urgent.status == 0 && urgent.jsonLines.first?["source"] as? String == "network", "\(urgent.stderr)")
        #expect(unknown.status == 2 && unknown.stderr.contains("very-high"), "\(unknown.stderr)")
        #expect(server.requestCount(for: "/badge.png") == 1)
    }

    @Test func dropQueryMakesSignedURLsShareOneEntry() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work)
        let signed = ["aaa", "bbb"].map { server.url("/badge.png?sig=\($0)").absoluteString }

        let first = try await cli.run(["get", signed[0], "--drop-query", "sig", "--json"])
        let second = try await cli.run(["get", signed[1], "--drop-query", "sig", "--json"])
        let plain = try await cli.run(["get", signed[1], "--json"])
        let bad = try await cli.run(["get", signed[1], "--drop-query", "*"])
        await server.stop()

        #expect(first.jsonLines.first?["source"] as? String == "network", "\(first.stderr)")
        #expect(second.jsonLines.first?["source"] as? String == "disk", "\(second.stderr)")
        // Without the flag the signature is part of the key: a miss.
        #expect(plain.jsonLines.first?["source"] as? String == "network")
        #expect(server.requestCount(for: "/badge.png") == 2)
        #expect(bad.status == 2 && bad.stderr.contains("--drop-query needs a parameter name"), "\(bad.stderr)")
    }

    @Test func everyEntryIsOnDiskWhenGetExits() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let config = work.appendingPathComponent("trove.json")
        try Data(#"{"disk": {"fsync": true}}"#.utf8).write(to: config)
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))
        let urls = (0..<4).map { server.url("/chelsea.png?copy=\($0)").absoluteString }
        let transform = ["--transform", "resize:w=32,h=32,mode=stretch,filter=bilinear"]

        let get = try await cli.run(["get"] + urls + transform + ["--config", config.path, "--json"])
        await server.stop()
        #expect(get.status == 0, "stderr: \(get.stderr)")
        #expect(get.jsonLines.count == urls.count)
        let stats = try await cli.run(["cache", "stats", "--json"])
        // Each URL's fetched bytes and its processed result.
        #expect(stats.jsonLines.first?["entries"] as? Int == 2 * urls.count)
    }

    @Test func secondRunInANewProcessComesFromDiskWithNoRequest() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))
        let url = server.url("/chelsea.png").absoluteString
        let arguments = [
            "get", url, "--transform", "resize:w=96,h=64,mode=stretch,filter=bilinear",
            "-o", work.appendingPathComponent("out.png").path, "--json"
        ]

        let first = try await cli.run(arguments)
        let second = try await cli.run(arguments)
        await server.stop()

        #expect(first.status == 0, "stderr: \(first.stderr)")
        #expect(second.status == 0, "stderr: \(second.stderr)")
        let a = try #require(first.jsonLines.first), b = try #require(second.jsonLines.first)
        #expect(first.jsonLines.count == 1 && first.stdout.split(separator: "\n").count == 1)
        #expect(a["source"] as? String == "network")
        #expect(b["source"] as? String == "disk")
        for line in [a, b] {
            #expect(line["url"] as? String == url)
            #expect(line["width"] as? Int == 96)
            #expect(line["height"] as? Int == 64)
            #expect(line["format"] as? String == "png")
            #expect(line["ms"] is Double)
        }
        #expect(server.requests == ["/chelsea.png"])
        let written = try Data(contentsOf: work.appendingPathComponent("out.png"))
        #expect(b["bytes"] as? Int == written.count)
        #expect(written.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test func withoutATransformTheOriginalBytesAreWritten() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))
        let result = try await cli.run([
            "get", server.url("/tiles.png").absoluteString, "-o", work.appendingPathComponent("t.png").path
        ])
        await server.stop()
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            try Data(contentsOf: work.appendingPathComponent("t.png"))
                == Data(contentsOf: Fixtures.images.appendingPathComponent("tiles.png")))
    }

    @Test func failedFetchExitsOneWithTheMessageOnStderr() async throws {
        let server = FixtureServer()
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let url = server.url("/missing.png").absoluteString
        let result = try await CLIRunner(cacheDirectory: work).run(["get", url, "--json"])
        await server.stop()
        #expect(result.status == 1)
        #expect(result.stderr.contains("HTTP 404 for \(url)"))
        #expect(result.jsonLines.first?["error"] as? String != nil)
    }

    @Test(arguments: [
        ["get", "--bogus-flag", "x"],
        ["get", "x.png", "--transform", "resize:w=abc"],
        ["get", "x.png", "--hasher", "sha3"],
        ["get", "x.png", "--policy", "sometimes"],
        ["no-such-command"]
    ])
    func badUsageExitsTwo(arguments: [String]) async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let result = try await CLIRunner(cacheDirectory: work).run(arguments)
        #expect(result.status == 2, "stdout: \(result.stdout) stderr: \(result.stderr)")
        #expect(!result.stderr.isEmpty)
        #expect(result.stdout.isEmpty)
    }
}
