import FixtureServer
import Foundation
import Testing
import TroveTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Three `trove serve` processes behind a real nginx load balancer, sharing one real Redis, in front of an
/// nginx origin, all on loopback: under a steady load, a server killed and restarted, Redis restarted, and
/// a rolling SIGTERM restart of every server cost no client a failed request, and the origin's access log
/// shows each source fetched once before the faults and at most once per server through them.
@Suite(.serialized) struct ServeFleetTests {
    /// Twelve small sources (two drawings, six copies each under their own names).
    static let sources = (0..<12).map { "/fleet/source-\($0).png" }
    /// Each source at three sizes, so every server needs the source bytes, not only a result it made.
    static let widths = [40, 48, 56]

    /// The running fleet and where its parts listen.
    struct Fleet {
        let origin: NginxTestServer
        let redis: RedisTestServer
        let servers: [TroveServeProcess]
        let balancer: NginxTestServer

        /// An unsigned proxy URL path for `source` fitted into `width` x `width`.
        func path(_ source: String, width: Int) -> String {
            "/_/rs:fit:\(width):\(width)/plain/\(origin.url(source).absoluteString)@png"
        }

        /// Every path the load asks for.
        var paths: [String] {
            ServeFleetTests.sources.flatMap { source in ServeFleetTests.widths.map { path(source, width: $0) } }
        }

        /// How often the origin served each source so far.
        func originFetches() async -> [String: Int] {
            let logged = await origin.requests()
            return Dictionary(
                uniqueKeysWithValues: ServeFleetTests.sources.map { source in
                    (source, logged.filter { $0.uri == source && $0.status == 200 }.count)
                })
        }
    }

    /// Starts the origin, Redis, three servers on fixed ports and the balancer; runs `body`; stops them all.
    func withFleet(_ body: (Fleet) async throws -> Void) async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let files = work.appendingPathComponent("origin")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        for (index, source) in Self.sources.enumerated() {
            let drawing = Fixtures.image(index % 2 == 0 ? "badge.png" : "tiles.png")
            try FileManager.default.copyItem(
                at: drawing, to: files.appendingPathComponent(URL(fileURLWithPath: source).lastPathComponent))
        }
        try await withNginxServer(serving: files, locations: ["/fleet/": [:]]) { origin in
            try await withRedisServer { redis in
                let servers = try (0..<3).map { index in
                    TroveServeProcess(
                        port: try freeLoopbackPort(),
                        arguments: [
                            "--cache-dir", work.appendingPathComponent("cache-\(index)").path,
                            "--allow-loopback-sources", "--shared-cache", redis.url().absoluteString,
                            "--max-concurrency", "2", "--health-grace", "1", "--drain-seconds", "20",
                            "--log-level", "error"
                        ])
                }
                try await withCleanup {
                    for server in servers { try await server.start() }
                    let balancer = try await NginxTestServer.startBalancer(upstreams: servers.map(\.port))
                    try await withCleanup {
                        try await body(Fleet(origin: origin, redis: redis, servers: servers, balancer: balancer))
                    } finally: {
                        await balancer.stop()
                    }
                } finally: {
                    for server in servers { await server.stop() }
                }
            }
        }
    }

    /// Asks for every source once through the balancer, one after another, and checks each was fetched
    /// from the origin exactly once.
    func warm(_ fleet: Fleet) async throws {
        for source in Self.sources {
            let answer = await get(port: fleet.balancer.port, path: fleet.path(source, width: Self.widths[0]))
            #expect(answer?.status == 200 && answer?.isComplete == true, "\(source): \(String(describing: answer))")
        }
        for (source, count) in await fleet.originFetches() { #expect(count == 1, "\(source) fetched \(count) times") }
    }

    /// Waits until the load has `more` answers beyond those it had when called.
    func waitForAnswers(_ load: LoopbackLoad, more: Int) async {
        let target = load.count + more
        _ = await eventually(within: .seconds(60)) { load.count >= target }
    }

    /// Every failed request, as `path: answer`, and the total.
    func failures(_ outcomes: [LoopbackLoad.Outcome]) -> [String] {
        outcomes.filter { !$0.succeeded }.map { "\($0.path): \(String(describing: $0.answer))" }
    }

    @Test func aServerKilledAndRedisRestartedUnderLoadFailNoRequest() async throws {
        try await withFleet { fleet in
            try await warm(fleet)
            let before = await fleet.originFetches()

            let load = LoopbackLoad(port: fleet.balancer.port, paths: fleet.paths, workers: 4)
            await waitForAnswers(load, more: 30)
            await fleet.servers[1].signal(SIGKILL)
            #expect(await fleet.servers[1].waitForExit() != nil)
            await waitForAnswers(load, more: 20)
            try await fleet.servers[1].start()
            await waitForAnswers(load, more: 20)
            await fleet.redis.kill()
            await waitForAnswers(load, more: 20)
            try await fleet.redis.restart()
            await waitForAnswers(load, more: 40)
            let outcomes = await load.stop()

            #expect(outcomes.count >= 130)
            let failed = failures(outcomes)
            #expect(failed.isEmpty, "\(failed.count) of \(outcomes.count) failed: \(failed.prefix(5))")
            // Through the faults each source came from the origin at most once per server.
            for (source, count) in await fleet.originFetches() {
                #expect(count - before[source, default: 0] <= fleet.servers.count, "\(source): \(count) fetches")
            }
        }
    }

    @Test func aRollingSigtermRestartOfEveryServerFailsNoRequest() async throws {
        try await withFleet { fleet in
            try await warm(fleet)
            let before = await fleet.originFetches()

            let load = LoopbackLoad(port: fleet.balancer.port, paths: fleet.paths, workers: 4)
            await waitForAnswers(load, more: 20)
            for server in fleet.servers {
                await server.signal(SIGTERM)
                // The draining server fails /health at once, while it still listens (for --health-grace).
                let port = server.port
                let healthFailed = await eventually(within: .seconds(5)) {
                    await get(port: port, path: "/health", timeout: 2)?.status == 503
                }
                #expect(healthFailed, "/health of the server on port \(port) did not fail while draining")
                #expect(await server.waitForExit() == 0, "the server on port \(port) did not drain and exit 0")
                let loggedBeforeRestart = await fleet.balancer.accessLogFields().count
                try await server.start()
                // As an operator would, take the next one down only once the balancer routes to this one again:
                // nginx's passive checks keep a server out for `fail_timeout` after its drain's last refusal.
                let backInRotation = await eventually(within: .seconds(30)) {
                    await fleet.balancer.accessLogFields().dropFirst(loggedBeforeRestart).contains {
                        $0.count >= 5 && $0[3].hasSuffix("200") && $0[4].hasSuffix("127.0.0.1:\(port)")
                    }
                }
                #expect(backInRotation, "the balancer never routed to the restarted server on port \(port)")
                await waitForAnswers(load, more: 20)
            }
            let outcomes = await load.stop()

            #expect(outcomes.count >= 80)
            let failed = failures(outcomes)
            #expect(failed.isEmpty, "\(failed.count) of \(outcomes.count) failed: \(failed.prefix(5))")
            for (source, count) in await fleet.originFetches() {
                #expect(count - before[source, default: 0] <= fleet.servers.count, "\(source): \(count) fetches")
            }
        }
    }
}

/// `loopbackGet` on a dispatch thread, so the blocking socket calls never hold a cooperative thread.
func get(
    port: Int, path: String, timeout: Int = 30, keepingBody: Bool = false, headers: [String: String] = [:],
    keepAlive: Bool = false
) async -> LoopbackAnswer? {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(
                returning: loopbackGet(
                    port: port, path: path, timeout: timeout, keepingBody: keepingBody, headers: headers,
                    keepAlive: keepAlive))
        }
    }
}
