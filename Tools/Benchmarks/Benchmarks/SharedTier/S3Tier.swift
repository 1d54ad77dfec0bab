import Benchmark
import Crypto
import FixtureServer
import Foundation
import Trove
import TroveS3

// The S3 tier against a bare signed GET of the same object, in the same run, on one SeaweedFS on loopback:
//   pipeline S3 shared hit (memory miss, GET, entry check, memory fill)  vs  a bare signed GET of the object
//   tier GET (the tier's get: object key, deadline, counters)           vs  the same bare signed GET
// for a 4 KB and a 136 KB PNG. Compare medians: "shared hit" / "bare signed GET" (issue 39's bound: 1.2x). The
// bare GET (`BareSignedGET`) signs with SigV4 written in this package, so the baseline runs no Trove code.

/// One value size's S3 tier, its pipeline, and the object's key for the bare GET.
struct S3Fixture: Sendable {
    let tier: any SharedCacheTier
    let pipeline: DataPipeline
    let url: URL
    let key: String
    let objectKey: String
    let bare: BareSignedGET
    let bucket: String
}

final class S3TierBench: @unchecked Sendable {  // written once in the async setup hook, read after
    static let shared = S3TierBench()
    var seaweed: SeaweedProcess?
    var origin: FixtureServer?
    var fixtures: [String: S3Fixture] = [:]

    func start() async throws {
        guard seaweed == nil else { return }
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let repository = here.appendingPathComponent("../../Trove").standardized.resolvingSymlinksInPath()
        let seaweed = try SeaweedProcess(repository: repository)
        self.seaweed = seaweed

        let images = repository.appendingPathComponent("Tests/Fixtures/images")
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
        try registry.install(
            TroveS3Plugin(
                environment: [
                    "AWS_ACCESS_KEY_ID": seaweed.accessKeyID, "AWS_SECRET_ACCESS_KEY": seaweed.secretAccessKey
                ], sources: nil))
        for file in files {
            let url = origin.url("/\(file)")
            // Memory only: a hit must come from the tier, not from a disk the first fetch filled.
            var pipelineConfiguration = PipelineConfiguration.memoryOnly
            pipelineConfiguration.retryPolicy = .none
            pipelineConfiguration.sharedCaches = [
                URL(
                    string: "s3://\(seaweed.bucket)/bench?endpoint=\(seaweed.endpoint.absoluteString)&region=us-east-1")!
            ]
            let pipeline = try DataPipeline(registry: registry, configuration: pipelineConfiguration)
            let tier = pipeline.sharedTier!
            try await seaweed.waitUntilReady(tier)
            let key = DataRequest(url: url).cacheKey
            // The first fetch stores the entry behind its answer: wait until the object is there.
            _ = try await pipeline.data(for: url)
            for _ in 0..<500 {
                if try await tier.get(key) != nil { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            let bare = BareSignedGET(
                endpoint: seaweed.endpoint, region: "us-east-1", accessKeyID: seaweed.accessKeyID,
                secretAccessKey: seaweed.secretAccessKey)
            fixtures[file] = S3Fixture(
                tier: tier, pipeline: pipeline, url: url, key: key,
                objectKey: Self.objectKey(
                    prefix: "bench", key: pipelineConfiguration.sharedTierOptions.keyPrefix + key),
                bare: bare,
                bucket: seaweed.bucket)
        }
    }

    /// Where the tier keeps a value, as Plugins/README.md gives its layout: `prefix/aa/bb/<sha256 hex>` of the
    /// tier's key prefix and the key.
    static func objectKey(prefix: String, key: String) -> String {
        let hex = SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined()
        let characters = Array(hex)
        return "\(prefix)/\(String(characters[0..<2]))/\(String(characters[2..<4]))/\(hex)"
    }
}

/// The S3 rows, registered beside the Redis ones.
func s3TierBenchmarks() {
    let bench = S3TierBench.shared
    let setup: Benchmark.BenchmarkSetupHook = { try await bench.start() }
    for file in ["badge.png", "camera.png"] {
        func fixture() -> S3Fixture { bench.fixtures[file]! }

        Benchmark(
            "\(file): S3 bare signed GET (baseline)",
            closure: { benchmark in
                let fixture = fixture()
                for _ in benchmark.scaledIterations {
                    blackHole(try await fixture.bare.get(bucket: fixture.bucket, key: fixture.objectKey))
                }
            }, setup: setup)

        Benchmark(
            "\(file): S3 tier GET (the tier's get, no entry check)",
            closure: { benchmark in
                let fixture = fixture()
                for _ in benchmark.scaledIterations {
                    blackHole(try await fixture.tier.get(fixture.key)!)
                }
            }, setup: setup)

        Benchmark(
            "\(file): S3 pipeline shared hit (memory miss, GET, entry check, memory fill)",
            closure: { benchmark in
                let fixture = fixture()
                for _ in benchmark.scaledIterations {
                    fixture.pipeline.memoryCache.removeAll()
                    let response = try await fixture.pipeline.data(for: fixture.url)
                    precondition(response.source == .shared)
                    blackHole(response)
                }
            }, setup: setup)
    }
}
