import FixtureServer
import Foundation
import Testing
import TroveTestSupport

/// What `trove get` promises about its cache across processes: stale-if-error, remembered failures that
/// name their cause, and a cache directory that survives a change of hasher. The same scenarios run against
/// a real nginx in `NginxCommandTests`.
@Suite struct CachingCommandTests {
    @Test func refreshWithTheOriginStoppedExitsZeroMarkedStale() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        try await CLIScenarios.refreshWithTheOriginStopped(
            server, path: "/badge.png", cli: CLIRunner(cacheDirectory: work))
        await server.stop()
    }

    @Test func aRememberedFailureNamesItsCause() async throws {
        let server = FixtureServer()
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        try await CLIScenarios.aRememberedFailureNamesItsCause(
            server, path: "/missing.png", cli: CLIRunner(cacheDirectory: work))
        await server.stop()
    }

    @Test func changingTheHasherKeepsEveryEntry() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        try await CLIScenarios.changingTheHasherKeepsEveryEntry(
            server, paths: ("/badge.png", "/tiles.png"), cli: CLIRunner(cacheDirectory: work))
        await server.stop()
    }
}

@Suite struct TimeoutCommandTests {
    @Test func theDeadlineEndsAHungRequestWithItsOwnError() async throws {
        let gate = FixtureGate()
        let server = FixtureServer()
        server.setRoute("/hung.png", .gated(Data(), contentType: "image/png", gate: gate))
        try await server.start()
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
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
        #expect(idle.stderr.contains("the origin sent nothing for 0.5 seconds"), "stderr: \(idle.stderr)")
        let bad = try await CLIRunner(cacheDirectory: work).run(["get", url, "--deadline", "0"])
        #expect(bad.status == 2 && bad.stderr.contains("--deadline must be more than 0 seconds"))
    }
}
