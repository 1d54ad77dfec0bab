import FixtureServer
import Foundation
import Testing
import TroveTestSupport

/// A "query of death": a source whose decode traps. Three servers (TroveCrashingServe: `trove serve` plus a
/// decoder that traps on a marker file) behind nginx share a real redis-server. The source kills the one
/// server it reaches; restarted, that server finds its crash journal, marks the source and publishes the
/// mark, so it and the other two refuse the source with 422 before decoding it, while every other request
/// succeeds. Once the mark is forgotten (`trove cache forget`), the source is tried again (and traps again).
@Suite(.serialized) struct PoisonedSourceFleetTests {
    static let trap = Data("TROVE-TRAP: this file makes the test decoder trap".utf8)

    @Test func aSourceThatKillsOneServerIsRefusedByTheFleetUntilForgotten() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let image = try Data(contentsOf: Fixtures.image("badge.png"))
        var routes: [String: FixtureServer.Route] = ["/poison.img": .file(Self.trap, contentType: "image/png")]
        for index in 0..<8 { routes["/good-\(index).png"] = .file(image, contentType: "image/png") }
        let origin = FixtureServer(routes: routes)
        try await origin.start()
        defer { Task { await origin.stop() } }
        func path(_ source: String) -> String { "/_/rs:fit:16:16/plain/\(origin.url(source).absoluteString)@png" }
        let goodPaths = (0..<8).map { path("/good-\($0).png") }
        let poison = path("/poison.img")

        try await withRedisServer { redis in
            let servers = try (0..<3).map { index in
                TroveServeProcess(
                    port: try freeLoopbackPort(),
                    arguments: [
                        "--cache-dir", work.appendingPathComponent("cache-\(index)").path,
                        "--allow-loopback-sources", "--shared-cache", redis.url().absoluteString, "--log-level", "error"
                    ],
                    executable: "TroveCrashingServe")
            }
            try await withCleanup {
                for server in servers { try await server.start() }
                let balancer = try await NginxTestServer.startBalancer(upstreams: servers.map(\.port))
                try await withCleanup {
                    let load = LoopbackLoad(port: balancer.port, paths: goodPaths, workers: 2)

                    // The source reaches one server, which dies of the trap without answering.
                    let killed = await get(port: servers[0].port, path: poison, timeout: 10)
                    #expect(killed?.status != 200)
                    let status = await servers[0].waitForExit()
                    #expect(status != nil && status != 0, "the server did not die: \(String(describing: status))")

                    // Restarted on the same cache directory, it refuses the source before decoding it; so do the
                    // others, which read the mark from the shared tier, and the balancer's answer is theirs.
                    try await servers[0].start()
                    for server in servers {
                        let refused = await get(port: server.port, path: poison)
                        #expect(refused?.status == 422, "port \(server.port): \(String(describing: refused))")
                    }
                    #expect(await get(port: balancer.port, path: poison)?.status == 422)
                    for server in servers {
                        #expect(await get(port: server.port, path: "/health")?.status == 200, "port \(server.port)")
                    }
                    let metrics = await get(port: servers[0].port, path: "/metrics", keepingBody: true)?.text ?? ""
                    #expect(metrics.contains("trove_poisoned_sources_marked_total 1"), "\(metrics)")
                    let others = await get(port: servers[1].port, path: "/metrics", keepingBody: true)?.text ?? ""
                    #expect(others.contains("trove_poisoned_sources_refused_total"), "\(others)")

                    // Every other request in the run succeeded, the crash included: at least ten of them, however
                    // slowly a loaded machine answers (the load runs until then).
                    _ = await eventually(within: .seconds(30)) { load.count >= 10 }
                    let outcomes = await load.stop()
                    let failed = outcomes.filter { !$0.succeeded }
                    #expect(outcomes.count >= 10 && failed.isEmpty, "\(failed.count) of \(outcomes.count) failed")

                    // Forgotten (by a process that guards nothing itself), the source is tried again once the
                    // servers read their marks again: its cached bytes are decoded, and the trap kills again.
                    let forget = try await CLIRunner(cacheDirectory: work.appendingPathComponent("cache-0")).run([
                        "cache", "forget", origin.url("/poison.img").absoluteString, "--json",
                        "--shared-cache", redis.url().absoluteString
                    ])
                    #expect(forget.jsonLines.first?["poisoned"] as? Int == 1, "\(forget.stdout) \(forget.stderr)")
                    let triedAgain = await eventually(within: .seconds(20)) {
                        await get(port: servers[1].port, path: poison, timeout: 10)?.status != 422
                    }
                    #expect(triedAgain, "the server still refuses the forgotten source")
                    #expect(await servers[1].waitForExit() != nil, "the source was not decoded again")
                } finally: {
                    await balancer.stop()
                }
            } finally: {
                for server in servers { await server.stop() }
            }
        }
    }
}
