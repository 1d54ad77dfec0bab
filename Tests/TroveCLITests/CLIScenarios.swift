import FixtureServer
import Foundation
import Testing
import TroveTestSupport

/// An origin `trove` is run against: the in-process fixture server, or a real nginx. The scenarios below
/// run against either, so what the fixture server shows is shown against nginx with the same checks.
protocol CLITestOrigin: Sendable {
    func url(_ path: String) -> URL
    /// The paths requested so far, oldest first.
    func requestedPaths() async -> [String]
    func stop() async
}

extension FixtureServer: CLITestOrigin {
    func requestedPaths() async -> [String] { requests }
}

extension NginxTestServer: CLITestOrigin {
    func requestedPaths() async -> [String] { requests().map(\.uri) }
}

/// `trove get` scenarios shared by the fixture-server and the nginx tests. Each takes a started origin and
/// an empty cache; paths name images the origin serves (and, for `path` in the stale scenario, one it
/// serves with whatever caching headers the caller chose).
enum CLIScenarios {
    /// A cached image, the origin stopped, `--policy refresh`: exit 0, the cached copy from disk marked stale.
    static func refreshWithTheOriginStopped(_ origin: some CLITestOrigin, path: String, cli: CLIRunner) async throws {
        let url = origin.url(path).absoluteString
        let first = try await cli.run(["get", url, "--json"])
        #expect(first.status == 0, "stderr: \(first.stderr)")
        #expect(first.jsonLines.first?["stale"] as? Bool == false)
        await origin.stop()
        let refreshed = try await cli.run(["get", url, "--policy", "refresh", "--json"])
        #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
        let line = try #require(refreshed.jsonLines.first, "stdout: \(refreshed.stdout)")
        #expect(line["stale"] as? Bool == true)
        #expect(line["source"] as? String == "disk")
    }

    /// A 404, then the same URL again: the second fails fast with no request, naming HTTP 404 and the way
    /// out (--retry-failed).
    static func aRememberedFailureNamesItsCause(_ origin: some CLITestOrigin, path: String, cli: CLIRunner)
        async throws
    {
        let url = origin.url(path).absoluteString
        let first = try await cli.run(["get", url])
        let again = try await cli.run(["get", url])
        #expect(first.status == 1 && first.stderr.contains("HTTP 404 for \(url)"), "stderr: \(first.stderr)")
        #expect(again.status == 1)
        #expect(again.stderr.contains("\(url) failed "), "stderr: \(again.stderr)")
        #expect(again.stderr.contains(" s ago with HTTP 404; pass retryFailed"), "stderr: \(again.stderr)")
        #expect(again.stderr.contains("--retry-failed"), "stderr: \(again.stderr)")
        #expect(await origin.requestedPaths() == [path])
    }

    /// md5, then sha256 on the same directory, then md5 again: every entry is re-filed, never dropped, so
    /// each image is fetched once and every later get is served from disk.
    static func changingTheHasherKeepsEveryEntry(
        _ origin: some CLITestOrigin, paths: (String, String), cli: CLIRunner
    ) async throws {
        let a = origin.url(paths.0).absoluteString, b = origin.url(paths.1).absoluteString
        let runs = [(a, "md5"), (a, "sha256"), (b, "sha256"), (a, "md5"), (b, "md5")]
        var sources: [String?] = []
        for (url, hasher) in runs {
            let result = try await cli.run(["get", url, "--hasher", hasher, "--json"])
            #expect(result.status == 0, "\(hasher) \(url): \(result.stderr)")
            sources.append(result.jsonLines.first?["source"] as? String)
        }
        #expect(sources == ["network", "disk", "network", "disk", "disk"])
        #expect(await origin.requestedPaths() == [paths.0, paths.1])
        let stats = try await cli.run(["cache", "stats", "--hasher", "md5", "--json"])
        #expect(stats.jsonLines.first?["entries"] as? Int == 2, "stdout: \(stats.stdout)")
        #expect(filesUnder(cli.cacheDirectory.appendingPathComponent("entries")).count == 2)
    }
}
