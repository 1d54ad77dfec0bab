import FixtureServer
import Foundation
import Testing
import Trove
import TroveTestSupport

/// `trove get --placeholder` and `trove prefetch --placeholder`, run as a user runs them against a real HTTP
/// server on 127.0.0.1: the strings are the library's, and once computed they come from the cache in a new
/// process with the origin gone.
@Suite struct PlaceholderCommandTests {
    /// The library's placeholder of a fixture, read from its file.
    static func expected(_ name: String, _ kind: PlaceholderKind) async throws -> String {
        try await ImagePipeline(configuration: .memoryOnly).placeholder(for: Fixtures.image(name), kind: kind)
    }

    @Test func getPrintsThePlaceholderAndANewProcessReadsItFromTheCache() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))
        let url = server.url("/coffee.png").absoluteString

        let first = try await cli.run(["get", url, "--placeholder", "thumbhash"])
        await server.stop()
        // The origin is gone: the string comes from the entry's header.
        let second = try await cli.run(["get", url, "--placeholder", "thumbhash", "--json"])
        let offline = try await cli.run(["get", url, "--placeholder", "blurhash", "--policy", "cache-only"])

        let thumbHash = try await Self.expected("coffee.png", .thumbHash)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == thumbHash + "\n")
        #expect(second.status == 0, "\(second.stderr)")
        let line = try #require(second.jsonLines.first)
        #expect(line["url"] as? String == url)
        let placeholder = try #require(line["placeholder"] as? [String: Any])
        #expect(placeholder["kind"] as? String == "thumbhash" && placeholder["value"] as? String == thumbHash)
        // A kind not computed yet is computed from the cached original, still without the origin.
        #expect(offline.status == 0, "\(offline.stderr)")
        let blurHash = try await Self.expected("coffee.png", .blurHash())
        #expect(offline.stdout == blurHash + "\n")
        #expect(server.requestCount(for: "/coffee.png") == 1)
    }

    @Test func withATransformTheSummaryLineCarriesIt() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))
        let run = try await cli.run([
            "get", server.url("/chelsea.png").absoluteString, "--transform", "resize:w=40,h=40,mode=fit",
            "--placeholder", "blurhash:3x5", "--json"
        ])
        let bad = try await cli.run(["get", server.url("/chelsea.png").absoluteString, "--placeholder", "blurhash:0x5"])
        await server.stop()

        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(run.jsonLines.first)
        #expect(line["width"] as? Int == 40 && line["source"] as? String == "network")
        let placeholder = try #require(line["placeholder"] as? [String: Any])
        #expect(placeholder["kind"] as? String == "blurhash:3x5")
        let expected = try await Self.expected("chelsea.png", .blurHash(x: 3, y: 5))
        #expect(placeholder["value"] as? String == expected)
        #expect(bad.status == 2 && bad.stderr.contains("--placeholder"), "\(bad.stderr)")
    }

    @Test func prefetchWritesThemInItsProgressLinesAndKeepsThem() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let names = ["badge.png", "tiles.png"]
        let list = work.appendingPathComponent("urls.txt")
        try names.map { server.url("/\($0)").absoluteString }.joined(separator: "\n")
            .write(to: list, atomically: true, encoding: .utf8)
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))

        let run = try await cli.run(["prefetch", list.path, "--placeholder", "thumbhash", "--progress", "json"])
        await server.stop()
        let later = try await cli.run(["get", server.url("/tiles.png").absoluteString, "--placeholder", "thumbhash"])

        #expect(run.status == 0, "\(run.stderr)")
        let perURL = run.jsonLines.dropLast()
        #expect(perURL.count == 2)
        for line in perURL {
            let name = try #require((line["url"] as? String)?.split(separator: "/").last.map(String.init))
            let placeholder = try #require(line["placeholder"] as? [String: Any], "\(line)")
            #expect(placeholder["kind"] as? String == "thumbhash")
            let expected = try await Self.expected(name, .thumbHash)
            #expect(placeholder["value"] as? String == expected, "\(name)")
            #expect(line["source"] as? String == "network")
        }
        let tiles = try await Self.expected("tiles.png", .thumbHash)
        #expect(later.status == 0 && later.stdout == tiles + "\n", "\(later.stderr)")
        #expect(names.allSatisfy { server.requestCount(for: "/\($0)") == 1 })
    }
}
