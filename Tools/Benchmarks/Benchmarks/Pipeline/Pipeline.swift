import AsyncHTTPClient
import Benchmark
import FixtureServer
import Foundation
import Trove

// The pipeline's miss path against the same work done bare, in the same run, on the same loopback URL:
//   DataPipeline miss (scheduler, coalescer, retries, fetch)   vs  a bare AsyncHTTPClient GET
//   ImagePipeline miss (the same, plus decoding the PNG)       vs  a bare GET plus the same decoder
// and the hit paths from memory and disk (the image's with its decode, the data's without). Compare medians: "miss" / "bare", and "miss" / "hit".

/// One loopback server and the pipelines, shared by the suite's benchmarks.
final class PipelineFixture: @unchecked Sendable {  // written once in the async setup hook, read after
    static let shared = PipelineFixture()
    var server: FixtureServer?
    var url = URL(string: "http://127.0.0.1/")!
    var memoryPipeline: ImagePipeline?
    var dataPipeline: DataPipeline?
    var diskPipeline: ImagePipeline?
    var diskDataPipeline: DataPipeline?
    var cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("trove-bench-pipeline")

    func start() async throws {
        guard server == nil else { return }
        let image = try Data(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Trove/Tests/Fixtures/images/badge.png").standardized)
        let server = FixtureServer(routes: ["/badge.png": .file(image, contentType: "image/png")])
        try await server.start()
        self.server = server
        url = server.url("/badge.png")
        try? FileManager.default.removeItem(at: cacheDirectory)
        var noRetries = PipelineConfiguration.memoryOnly
        noRetries.retryPolicy = .none
        memoryPipeline = try ImagePipeline(configuration: noRetries)
        dataPipeline = try DataPipeline(configuration: noRetries)
        var onDisk = PipelineConfiguration(cacheDirectory: cacheDirectory)
        onDisk.retryPolicy = .none
        diskPipeline = try ImagePipeline(configuration: onDisk)
        diskDataPipeline = try DataPipeline(configuration: onDisk)
        // Fill the caches once.
        _ = try await memoryPipeline!.image(for: url)
        _ = try await diskPipeline!.image(for: url)
        _ = try await diskDataPipeline!.data(for: url)
        // Stores are write-behind: the disk-hit benchmarks must read files, not the write queue.
        await diskPipeline!.flush()
        await diskDataPipeline!.flush()
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput], maxDuration: .seconds(3),
        maxIterations: 3_000)
    let fixture = PipelineFixture.shared
    let setup: Benchmark.BenchmarkSetupHook = { try await fixture.start() }

    Benchmark(
        "bare AsyncHTTPClient GET (baseline)",
        closure: { benchmark in
            for _ in benchmark.scaledIterations {
                var request = HTTPClientRequest(url: fixture.url.absoluteString)
                request.method = .GET
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                blackHole(try await response.body.collect(upTo: 1 << 20))
            }
        }, setup: setup)

    Benchmark(
        "bare AsyncHTTPClient GET + PNG decode (baseline)",
        closure: { benchmark in
            let decoder = try PluginRegistry.standard.decoder(named: "png")
            for _ in benchmark.scaledIterations {
                var request = HTTPClientRequest(url: fixture.url.absoluteString)
                request.method = .GET
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
                let body = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
                blackHole(try decoder.decode(body, limits: .default))
            }
        }, setup: setup)

    Benchmark(
        "DataPipeline miss (fetch, no decode, no disk)",
        closure: { benchmark in
            let request = DataRequest(url: fixture.url, cachePolicy: .reloadIgnoringCache)
            for _ in benchmark.scaledIterations {
                blackHole(try await fixture.dataPipeline!.data(for: request))
            }
        }, setup: setup)

    Benchmark(
        "pipeline miss (fetch + decode, no disk)",
        closure: { benchmark in
            let request = ImageRequest(url: fixture.url, cachePolicy: .reloadIgnoringCache)
            for _ in benchmark.scaledIterations {
                blackHole(try await fixture.memoryPipeline!.image(for: request))
            }
        }, setup: setup)

    Benchmark(
        "pipeline hit from memory",
        closure: { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try await fixture.memoryPipeline!.image(for: fixture.url))
            }
        }, setup: setup)

    Benchmark(
        "pipeline hit from disk (decode included)",
        closure: { benchmark in
            for _ in benchmark.scaledIterations {
                // A pipeline per hit would measure construction; clearing memory forces the disk tier instead.
                fixture.diskPipeline!.memoryCache.removeAll()
                blackHole(try await fixture.diskPipeline!.image(for: fixture.url))
            }
        }, setup: setup)

    Benchmark(
        "DataPipeline hit from disk (no decode)",
        closure: { benchmark in
            for _ in benchmark.scaledIterations {
                fixture.diskDataPipeline!.memoryCache.removeAll()
                blackHole(try await fixture.diskDataPipeline!.data(for: fixture.url))
            }
        }, setup: setup)
}
