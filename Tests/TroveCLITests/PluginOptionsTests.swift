import FixtureServer
import Foundation
import Testing
import TroveTestSupport

/// `--hasher`, `--eviction` and `--compress` are one option group each, checked against the registry
/// before a command runs, and every command that opens a cache takes them.
@Suite struct PluginOptionsTests {
    @Test(arguments: [
        (["get", "x.png", "--hasher", "sha3"], "unknown hasher 'sha3' for --hasher; known: md5, sha256"),
        (
            ["prefetch", "-", "--eviction", "clock"],
            "unknown evictionPolicy 'clock' for --eviction; known: fifo, lfu, lru, s3fifo, sieve, wtinylfu"
        ),
        (["cache", "put", "k", "-", "--compress", "lz4"], "unknown compressor 'lz4' for --compress; known: none, zlib"),
        (["cache", "stats", "--hasher", "crc"], "unknown hasher 'crc' for --hasher; known: md5, sha256"),
        (["sim", "--trace", "t", "--capacity", "0"], "--capacity must be at least 1 (got 0)")
    ])
    func anUnknownNameIsBadUsageThatListsTheKnownOnes(arguments: [String], message: String) async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let result = try await CLIRunner(cacheDirectory: work).run(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains("Error: \(message)"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        // Refused before running: nothing was created in the cache directory.
        #expect((try? FileManager.default.contentsOfDirectory(atPath: work.path))?.isEmpty ?? true)
    }

    @Test func prefetchWritesUnderTheHasherGetReadsWith() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let url = server.url("/badge.png").absoluteString
        let list = work.appendingPathComponent("urls.txt")
        try url.write(to: list, atomically: true, encoding: .utf8)
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))

        let warmed = try await cli.run(["prefetch", list.path, "--hasher", "md5", "--json"])
        let read = try await cli.run(["get", url, "--hasher", "md5", "--json"])
        await server.stop()
        #expect(warmed.status == 0)
        #expect(read.status == 0)
        #expect(read.jsonLines.first?["source"] as? String == "disk")
        #expect(server.requests.count == 1)
    }
}
