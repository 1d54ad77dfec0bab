import FixtureServer
import Foundation
import Testing
import TroveTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Three `trove serve` behind a real nginx (round robin, `proxy_next_upstream error timeout http_502 …`),
/// stacked on one Redis and one SeaweedFS (`--shared-cache redis://… --shared-cache s3://…`), in front of a
/// counting origin, all on loopback. N = 40 sources (`TROVE_FLEET_SOURCES=200` for the count) in 3
/// variants each, each asked twice with 4 requests in flight: every result is processed once across the
/// fleet (the shared tiers hold results as well as sources, each made under the fleet's lease on its key),
/// and every source is fetched from the origin once and stored in S3 once. Then, under a steady load that also brings new sources, one server
/// is SIGKILLed and SeaweedFS is killed and restarted on the same data: no request fails, every answer has
/// the size asked for, and once SeaweedFS is back the fleet stores in S3 again, so a fresh server on an
/// empty disk, on S3 alone, answers both an old and a new result without the origin or a transform.
@Suite(.serialized) struct S3FleetFaultTests {
    static let badge = try! Data(contentsOf: Fixtures.images.appendingPathComponent("badge.png"))
    static let tiles = try! Data(contentsOf: Fixtures.images.appendingPathComponent("tiles.png"))
    /// 40 by default; `TROVE_FLEET_SOURCES=200` runs the full count.
    static let sourceCount = ProcessInfo.processInfo.environment["TROVE_FLEET_SOURCES"].flatMap(Int.init) ?? 40
    static let sources = (0..<sourceCount).map { "/faults/source-\($0).png" }
    /// Sources first asked for during the faults, and after SeaweedFS is back.
    static let outageSources = (0..<6).map { "/faults/outage-\($0).png" }
    static let lateSources = (0..<20).map { "/faults/late-\($0).png" }
    /// Three variants: forced sizes, so each answer's size is known.
    static let sizes = [(40, 30), (48, 36), (56, 42)]

    struct Fleet {
        let origin: FixtureServer
        let servers: [TroveServeProcess]
        let balancer: NginxTestServer

        func path(_ source: String, size: (Int, Int)) -> String {
            "/_/rs:force:\(size.0):\(size.1)/plain/\(origin.url(source).absoluteString)@png"
        }

        /// The sum over `servers` of `name{tier="tier"}` (or of `name` alone, without a tier) in their `/metrics`.
        func total(_ name: String, tier: String? = nil, over servers: [TroveServeProcess]) async -> Double {
            var sum = 0.0
            for server in servers {
                let text = await get(port: server.port, path: "/metrics", keepingBody: true)?.text ?? ""
                sum +=
                    (tier.map { StackedSharedCacheTests.metric(name, tier: $0, in: text) }
                        ?? S3FleetFaultTests.metric(name, in: text)) ?? 0
            }
            return sum
        }
    }

    /// The value of the unlabelled sample `name` in a Prometheus exposition.
    static func metric(_ name: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.dropFirst(name.count + 1)) }
    }

    /// A PNG's width and height from its IHDR; nil for anything else.
    static func pngSize(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count >= 24, bytes[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            return nil
        }
        func integer(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (integer(16), integer(20))
    }

    /// GETs `path` through `port` and checks a complete 200 of `size`.
    static func expectAnswer(port: Int, path: String, size: (Int, Int)) async {
        let answer = await get(port: port, path: path, keepingBody: true)
        #expect(answer?.status == 200 && answer?.isComplete == true, "\(path): \(String(describing: answer?.status))")
        let found = answer.flatMap { pngSize($0.body) }
        #expect(found?.0 == size.0 && found?.1 == size.1, "\(path): \(String(describing: found))")
    }

    /// Asks for each of `paths` (with its size) through `port`, `workers` at a time.
    static func ask(_ paths: [(String, (Int, Int))], port: Int, workers: Int) async {
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    for index in stride(from: worker, to: paths.count, by: workers) {
                        await expectAnswer(port: port, path: paths[index].0, size: paths[index].1)
                    }
                }
            }
        }
    }

    @Test func aServerKilledAndSeaweedRestartedUnderLoadFailNoRequest() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        var routes: [String: FixtureServer.Route] = [:]
        for (index, source) in (Self.sources + Self.outageSources + Self.lateSources).enumerated() {
            routes[source] = .file(index % 2 == 0 ? Self.badge : Self.tiles, contentType: "image/png")
        }
        let origin = FixtureServer(routes: routes)
        try await origin.start()
        try await withRedisServer { redis in
            try await withSeaweedServer { seaweed in
                let s3 =
                    "s3://\(seaweed.bucket)/faults?endpoint=\(seaweed.endpoint.absoluteString)&region=us-east-1"
                let credentials = [
                    "AWS_ACCESS_KEY_ID": seaweed.accessKeyID, "AWS_SECRET_ACCESS_KEY": seaweed.secretAccessKey
                ]
                func server(_ name: String, tiers: [String]) throws -> TroveServeProcess {
                    TroveServeProcess(
                        port: try freeLoopbackPort(),
                        arguments: [
                            "--cache-dir", work.appendingPathComponent(name).path, "--allow-loopback-sources",
                            "--health-grace", "1", "--drain-seconds", "5", "--log-level", "error"
                        ] + tiers.flatMap { ["--shared-cache", $0] }, environment: credentials)
                }
                let servers = try (0..<3).map { try server("cache-\($0)", tiers: [redis.url().absoluteString, s3]) }
                try await withCleanup {
                    for server in servers { try await server.start() }
                    let balancer = try await NginxTestServer.startBalancer(upstreams: servers.map(\.port))
                    try await withCleanup {
                        let fleet = Fleet(origin: origin, servers: servers, balancer: balancer)
                        try await run(fleet, seaweed: seaweed) { try server("fresh", tiers: [s3]) }
                    } finally: {
                        await balancer.stop()
                    }
                } finally: {
                    for server in servers { await server.stop() }
                }
            }
        }
        await origin.stop()
    }

    func run(
        _ fleet: Fleet, seaweed: SeaweedTestServer, fresh: () throws -> TroveServeProcess
    ) async throws {
        let port = fleet.balancer.port
        let variants = Self.sources.flatMap { source in Self.sizes.map { (fleet.path(source, size: $0), $0) } }

        // Each result asked twice, 4 at a time: each result processed once across the fleet, one origin fetch
        // per source, and one S3 store per source and per result.
        await Self.ask(variants + variants, port: port, workers: 4)
        for source in Self.sources { #expect(fleet.origin.requestCount(for: source) == 1, "\(source)") }
        let processed = await fleet.total("trove_results_processed_total", over: fleet.servers)
        #expect(processed == Double(variants.count), "results processed across the fleet: \(processed)")
        var stores = 0.0
        let storedOnce = await eventually(within: .seconds(20)) {
            stores = await fleet.total("trove_shared_tier_stores_total", tier: "s3", over: fleet.servers)
            return stores == Double(Self.sourceCount + variants.count)
        }
        #expect(storedOnce, "s3 stores: \(stores)")

        // Faults under a steady load that also asks for sources nobody has yet.
        let outage = Self.outageSources.map { fleet.path($0, size: Self.sizes[0]) }
        let load = LoopbackLoad(port: port, paths: variants.map(\.0) + outage, workers: 4)
        func waitForAnswers(_ more: Int) async {
            let target = load.count + more
            _ = await eventually(within: .seconds(60)) { load.count >= target }
        }
        await waitForAnswers(30)
        await fleet.servers[1].signal(SIGKILL)
        #expect(await fleet.servers[1].waitForExit() != nil)
        await waitForAnswers(30)
        await seaweed.kill()
        await waitForAnswers(40)
        try await seaweed.restart()
        await waitForAnswers(40)
        let outcomes = await load.stop()
        let failed = outcomes.filter { !$0.succeeded }.map { "\($0.path): \(String(describing: $0.answer))" }
        #expect(outcomes.count >= 140)
        #expect(failed.isEmpty, "\(failed.count) of \(outcomes.count) failed: \(failed.prefix(5))")
        for (path, size) in variants.prefix(6) + outage.prefix(2).map({ ($0, Self.sizes[0]) }) {
            await Self.expectAnswer(port: port, path: path, size: size)
        }

        // SeaweedFS is back: new sources are stored in S3 again (once each live server's breaker has probed).
        // A late source counts once both its original and its result are there: the fresh server below makes a
        // new size from the original, and a store skipped while a breaker was still open leaves only one.
        let live = [fleet.servers[0], fleet.servers[2]]
        var late: String?
        for source in Self.lateSources {
            let before = await fleet.total("trove_shared_tier_stores_total", tier: "s3", over: live)
            await Self.expectAnswer(port: port, path: fleet.path(source, size: Self.sizes[1]), size: Self.sizes[1])
            let stored = await eventually(within: .seconds(2)) {
                await fleet.total("trove_shared_tier_stores_total", tier: "s3", over: live) >= before + 2
            }
            if stored {
                late = source
                break
            }
        }
        let stored = try #require(late, "no new source was stored in S3 after the restart")

        // A fresh server on an empty disk, on S3 alone: an old and a new result made elsewhere, with neither the
        // origin nor a transform; then a size nobody asked for, made there from the source in S3.
        let fetched = fleet.origin.requests.count
        let newcomer = try fresh()
        try await newcomer.start()
        await Self.expectAnswer(
            port: newcomer.port, path: fleet.path(stored, size: Self.sizes[1]), size: Self.sizes[1])
        await Self.expectAnswer(
            port: newcomer.port, path: fleet.path(Self.sources[5], size: Self.sizes[1]), size: Self.sizes[1])
        #expect(await fleet.total("trove_results_processed_total", over: [newcomer]) == 0)
        await Self.expectAnswer(
            port: newcomer.port, path: fleet.path(stored, size: Self.sizes[2]), size: Self.sizes[2])
        #expect(await fleet.total("trove_results_processed_total", over: [newcomer]) == 1)
        #expect(fleet.origin.requests.count == fetched)
        let hits = await fleet.total("trove_shared_tier_hits_total", tier: "s3", over: [newcomer])
        #expect(hits >= 3, "s3 hits on the fresh server: \(hits)")
        await newcomer.stop()
    }
}
