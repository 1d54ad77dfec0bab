import Benchmark
import FixtureServer
import Foundation
import Trove
import TroveRedis

// The shared tier against the same work done bare, in the same run, on one redis-server:
//   pipeline shared hit (memory miss, GET, entry check, memory fill)  vs  a bare GET of the same value
//   tier GET (the tier's own get: key prefix, timeouts, counters)   vs  the same bare GET
//   64 tier GETs in flight at once on its connection (pipelined)      vs  64 tier GETs one after another
//   pipeline shared hit                                               vs  a miss from a loopback origin
// for a 4 KB and a 136 KB PNG. Compare medians: "shared hit" / "bare GET", "pipelined" / "sequential".
// The S3 tier's rows against a bare signed GET are in S3Tier.swift.

/// A redis-server child process on a free loopback port, with nothing saved to disk.
final class RedisProcess: Sendable {
    let port: Int
    private let process: Process
    private let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-bench-redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Ports from a range the kernel rarely hands out for outgoing connections.
        port = Int.random(in: 20_000..<30_000)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--dir", directory.path
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        killAtExit(process)
    }

    var url: URL { URL(string: "redis://127.0.0.1:\(port)")! }

    func stop() {
        process.terminate()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// One value size's tier, pipelines and key.
struct SharedFixture: Sendable {
    let name: String
    let tier: any SharedCacheTier
    let sharedPipeline: DataPipeline
    let originPipeline: DataPipeline
    let url: URL
    let key: String
    /// The GET command's arguments as the tier sends them: `GET <prefix><key>`.
    let getCommand: [[UInt8]]
    /// A blocking socket of its own for the bare GET (the tier's RESP client is internal to Trove).
    let bare: BareRedisConnection
}

final class SharedTierBench: @unchecked Sendable {  // written once in the async setup hook, read after
    static let shared = SharedTierBench()
    var redis: RedisProcess?
    var origin: FixtureServer?
    var fixtures: [String: SharedFixture] = [:]

    func start() async throws {
        guard redis == nil else { return }
        let redis = try RedisProcess()
        self.redis = redis
        let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Trove/Tests/Fixtures/images").standardized
        let files = ["badge.png", "camera.png"]
        var routes: [String: FixtureServer.Route] = [:]
        for file in files {
            routes["/\(file)"] = .file(
                try Data(contentsOf: images.appendingPathComponent(file)), contentType: "image/png")
        }
        let origin = FixtureServer(routes: routes)
        try await origin.start()
        self.origin = origin

        var registry = PluginRegistry.standard
        try registry.install(TroveRedisPlugin())
        for file in files {
            let url = origin.url("/\(file)")
            // One tier connection; the bare GET has its own blocking socket.
            // Memory only: a hit must come from the tier, not from a disk the first fetch filled.
            var configuration = PipelineConfiguration.memoryOnly
            configuration.retryPolicy = .none
            configuration.sharedCaches = [redis.url]
            configuration.sharedTierOptions = SharedTierOptions(connections: 1)
            let sharedPipeline = try DataPipeline(registry: registry, configuration: configuration)
            var plain = PipelineConfiguration.memoryOnly
            plain.retryPolicy = .none
            let originPipeline = try DataPipeline(registry: registry, configuration: plain)
            let tier = sharedPipeline.sharedTier!
            // Wait for the server, then fill the tier through the pipeline (an origin fetch stores it).
            var bare: BareRedisConnection?
            for _ in 0..<500 {
                if let connection = try? BareRedisConnection(port: redis.port),
                    (try? connection.command([Array("PING".utf8)])) != nil
                {
                    bare = connection
                    break
                }
                try await Task.sleep(for: .milliseconds(10))
            }
            guard let bare else { throw POSIXError(.ECONNREFUSED) }
            _ = try await sharedPipeline.data(for: url)
            let key = DataRequest(url: url).cacheKey
            fixtures[file] = SharedFixture(
                name: file, tier: tier, sharedPipeline: sharedPipeline,
                originPipeline: originPipeline, url: url, key: key,
                getCommand: [Array("GET".utf8), Array((configuration.sharedTierOptions.keyPrefix + key).utf8)],
                bare: bare)
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput], maxDuration: .seconds(3),
        maxIterations: 5_000)
    let bench = SharedTierBench.shared
    let setup: Benchmark.BenchmarkSetupHook = { try await bench.start() }

    for file in ["badge.png", "camera.png"] {
        func fixture() -> SharedFixture { bench.fixtures[file]! }

        Benchmark(
            "\(file): bare GET of the value, a blocking socket (baseline)",
            closure: { benchmark in
                let fixture = fixture()
                for _ in benchmark.scaledIterations {
                    blackHole(try fixture.bare.command(fixture.getCommand)!)
                }
            }, setup: setup)

        Benchmark(
            "\(file): tier GET (the tier's get, no entry check)",
            closure: { benchmark in
                let fixture = fixture()
                for _ in benchmark.scaledIterations {
                    // The entry check (EntryCodec) is package-internal: the pipeline row below measures it.
                    blackHole(try await fixture.tier.get(fixture.key)!)
                }
            }, setup: setup)

        Benchmark(
            "\(file): pipeline shared hit (memory miss, GET, entry check, memory fill)",
            closure: { benchmark in
                let fixture = fixture()
                for _ in benchmark.scaledIterations {
                    fixture.sharedPipeline.memoryCache.removeAll()
                    let response = try await fixture.sharedPipeline.data(for: fixture.url)
                    precondition(response.source == .shared)
                    blackHole(response)
                }
            }, setup: setup)

        Benchmark(
            "\(file): loopback origin miss (no shared tier)",
            closure: { benchmark in
                let fixture = fixture()
                let request = DataRequest(url: fixture.url, cachePolicy: .reloadIgnoringCache)
                for _ in benchmark.scaledIterations {
                    blackHole(try await fixture.originPipeline.data(for: request))
                }
            }, setup: setup)
    }

    // Throughput on the tier's one connection: 64 GETs one after another against 64 in flight at once.
    Benchmark(
        "64 GETs sequential, one connection (baseline)",
        closure: { benchmark in
            let fixture = bench.fixtures["badge.png"]!
            for _ in benchmark.scaledIterations {
                for _ in 0..<64 { blackHole(try await fixture.tier.get(fixture.key)!) }
            }
        }, setup: setup)

    Benchmark(
        "64 GETs pipelined, one connection",
        closure: { benchmark in
            let fixture = bench.fixtures["badge.png"]!
            for _ in benchmark.scaledIterations {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<64 {
                        group.addTask { blackHole(try await fixture.tier.get(fixture.key)!) }
                    }
                    try await group.waitForAll()
                }
            }
        }, setup: setup)

    s3TierBenchmarks()
}
