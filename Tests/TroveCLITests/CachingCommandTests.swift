import FixtureServer
import Foundation
import Testing
import TroveTestSupport

/// What `trove get` promises about its cache across processes: stale-if-error, remembered failures that
/// name their cause, and a cache directory that survives a change of hasher.
@Suite struct CachingCommandTests {
    @Test func refreshWithTheOriginStoppedExitsZeroMarkedStale() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let cli = CLIRunner(cacheDirectory: work)
        let url = server.url("/badge.png").absoluteString
        let first = try await cli.run(["get", url, "--json"])
        await server.stop()
        let refreshed = try await cli.run(["get", url, "--policy", "refresh", "--json"])
        #expect(first.status == 0, "stderr: \(first.stderr)")
        #expect(refreshed.status == 0, "stderr: \(refreshed.stderr)")
        let line = try #require(refreshed.jsonLines.first)
        #expect(line["stale"] as? Bool == true)
        #expect(line["source"] as? String == "disk")
        #expect(first.jsonLines.first?["stale"] as? Bool == false)
    }

    @Test func aRememberedFailureNamesItsCause() async throws {
        let server = FixtureServer()
        try await server.start()
        let work = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let cli = CLIRunner(cacheDirectory: work)
        let url = server.url("/missing.png").absoluteString
        _ = try await cli.run(["get", url])
        let again = try await cli.run(["get", url])
        await server.stop()
        #expect(again.status == 1)
        #expect(again.stderr.contains("\(url) failed "), "stderr: \(again.stderr)")
        #expect(again.stderr.contains(" s ago with HTTP 404; pass retryFailed"), "stderr: \(again.stderr)")
        #expect(again.stderr.contains("--retry-failed"))
        #expect(server.requests == ["/missing.png"])
    }

    @Test func changingTheHasherKeepsEveryEntry() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let cli = CLIRunner(cacheDirectory: work)
        let a = server.url("/badge.png").absoluteString, b = server.url("/tiles.png").absoluteString
        let first = try await cli.run(["get", a, "--hasher", "md5", "--json"])
        let second = try await cli.run(["get", b, "--hasher", "sha256", "--json"])
        let third = try await cli.run(["get", a, "--hasher", "md5", "--json"])
        await server.stop()
        for result in [first, second, third] { #expect(result.status == 0, "stderr: \(result.stderr)") }
        #expect(third.jsonLines.first?["source"] as? String == "disk")
        #expect(server.requests == ["/badge.png", "/tiles.png"])
    }
}

@Suite struct TimeoutCommandTests {
    @Test func theDeadlineEndsAHungRequestWithItsOwnError() async throws {
        let gate = FixtureGate()
        let server = FixtureServer()
        server.setRoute("/hung.png", .gated(Data(), contentType: "image/png", gate: gate))
        try await server.start()
        let work = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let url = server.url("/hung.png").absoluteString
        let deadline = try await CLIRunner(cacheDirectory: work).run([
            "get", url, "--timeout", "30", "--deadline", "0.5"
        ])
        let idle = try await CLIRunner(cacheDirectory: work).run(["get", url, "--timeout", "0.5"])
        gate.open()
        await server.stop()
        #expect(deadline.status == 1)
        #expect(
            deadline.stderr.contains("did not finish within its deadline of 0.5 seconds"), "stderr: \(deadline.stderr)")
        #expect(idle.status == 1)
        #expect(idle.stderr.contains("nothing received for 0.5 seconds"), "stderr: \(idle.stderr)")
        let bad = try await CLIRunner(cacheDirectory: work).run(["get", url, "--deadline", "0"])
        #expect(bad.status == 2 && bad.stderr.contains("--deadline must be more than 0 seconds"))
    }
}
