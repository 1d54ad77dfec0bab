import FixtureServer
import Foundation
import Testing
import TroveTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The `trove` binary on stacked tiers (`--shared-cache redis://… --shared-cache s3://…`) and on S3 alone,
/// against a real redis-server and SeaweedFS on loopback.
@Suite(.serialized, SuiteSeaweed()) struct StackedSharedCacheTests {
    static let image = try! Data(contentsOf: Fixtures.images.appendingPathComponent("badge.png"))

    var seaweed: SeaweedTestServer { SuiteSeaweed.current! }

    func s3(_ prefix: String) -> String {
        "s3://\(seaweed.bucket)/\(prefix)-\(UUID().uuidString.prefix(8))?endpoint=\(seaweed.endpoint.absoluteString)"
            + "&region=us-east-1"
    }

    var credentials: [String: String] {
        ["AWS_ACCESS_KEY_ID": seaweed.accessKeyID, "AWS_SECRET_ACCESS_KEY": seaweed.secretAccessKey]
    }

    /// The value of `name{tier="tier"}` in a `/metrics` text; nil when absent.
    static func metric(_ name: String, tier: String, in text: String) -> Double? {
        let prefix = "\(name){tier=\"\(tier)\"} "
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) }
    }

    @Test func serveOnAStackAnswersAFreshServerWithoutTheOrigin() async throws {
        try await withRedisServer { redis in
            let work = try temporaryDirectory()
            defer { removeTemporaryDirectory(work) }
            let origin = FixtureServer(routes: ["/stack/serve.png": .file(Self.image, contentType: "image/png")])
            try await origin.start()
            let stack = ["--shared-cache", redis.url().absoluteString, "--shared-cache", s3("serve")]
            func server(_ name: String) throws -> TroveServeProcess {
                TroveServeProcess(
                    port: try freeLoopbackPort(),
                    arguments: [
                        "--cache-dir", work.appendingPathComponent(name).path, "--allow-loopback-sources",
                        "--health-grace", "1", "--drain-seconds", "5", "--log-level", "error"
                    ] + stack, environment: credentials)
            }
            let path = "/_/rs:fit:20:20/plain/\(origin.url("/stack/serve.png"))@png"

            let first = try server("first")
            try await first.start()
            let answer = await get(port: first.port, path: path)
            #expect(answer?.status == 200 && answer?.isComplete == true, "\(String(describing: answer))")
            await first.signal(SIGTERM)
            #expect(await first.waitForExit() != nil)

            // A fresh server on an empty disk: answered from Redis.
            let second = try server("second")
            try await second.start()
            let again = await get(port: second.port, path: path)
            #expect(again?.status == 200 && again?.isComplete == true, "\(String(describing: again))")
            await second.stop()
            #expect(origin.requestCount(for: "/stack/serve.png") == 1)

            // Redis comes back empty: a third fresh server is answered from S3, which fills Redis again.
            await redis.kill()
            try await redis.restart()
            let third = try server("third")
            try await third.start()
            let fromS3 = await get(port: third.port, path: path)
            #expect(fromS3?.status == 200 && fromS3?.isComplete == true, "\(String(describing: fromS3))")
            #expect(origin.requestCount(for: "/stack/serve.png") == 1)
            var metrics = ""
            let copied = await eventually(within: .seconds(10)) {
                metrics = loopbackGet(port: third.port, path: "/metrics", keepingBody: true)?.text ?? ""
                return (Self.metric("trove_shared_tier_copied_up_total", tier: "redis", in: metrics) ?? 0) >= 1
            }
            #expect(copied, "\(metrics)")
            #expect((Self.metric("trove_shared_tier_hits_total", tier: "s3", in: metrics) ?? 0) >= 1, "\(metrics)")
            #expect(Self.metric("trove_shared_tier_circuit_open", tier: "redis", in: metrics) == 0)
            await third.stop()
            await origin.stop()
        }
    }

    @Test func twoProcessesOnS3AloneFetchTheOriginOnce() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let origin = FixtureServer(routes: [
            "/stack/slow.png": .delayed(Self.image, contentType: "image/png", delay: .seconds(1))
        ])
        try await origin.start()
        let url = origin.url("/stack/slow.png").absoluteString
        let tier = s3("race")
        func fetch(_ name: String) async throws -> CLIRunner.Result {
            try await CLIRunner(cacheDirectory: work.appendingPathComponent(name)).run(
                ["get", url, "--json", "--shared-cache", tier], environment: credentials)
        }
        async let a = fetch("a")
        async let b = fetch("b")
        let results = try await [a, b]
        for result in results { #expect(result.status == 0, "stderr: \(result.stderr)") }
        let sources = results.compactMap { $0.jsonLines.first?["source"] as? String }.sorted()
        #expect(sources == ["network", "shared"], "\(results.map(\.stderr))")
        #expect(origin.requestCount(for: "/stack/slow.png") == 1)
        await origin.stop()
    }

    @Test func statsAndForgetReachEveryTier() async throws {
        try await withRedisServer { redis in
            let work = try temporaryDirectory()
            defer { removeTemporaryDirectory(work) }
            let origin = FixtureServer(routes: ["/stack/forget.png": .file(Self.image, contentType: "image/png")])
            try await origin.start()
            let url = origin.url("/stack/forget.png").absoluteString
            let tier = s3("forget")
            // The variable's list form, comma- or space-separated.
            let environment = credentials.merging([
                "TROVE_SHARED_CACHE": "\(redis.url().absoluteString), \(tier)"
            ]) { $1 }
            let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("a"))
            let first = try await cli.run(["get", url, "--json"], environment: environment)
            #expect(first.jsonLines.first?["source"] as? String == "network", "stderr: \(first.stderr)")

            let stats = try await cli.run(["cache", "stats", "--json"], environment: environment)
            #expect(stats.status == 0, "stderr: \(stats.stderr)")
            let shared = try #require(stats.jsonLines.first?["shared"] as? [String: Any], "\(stats.stdout)")
            let tiers = try #require(shared["tiers"] as? [[String: Any]], "\(stats.stdout)")
            #expect(tiers.compactMap { $0["name"] as? String } == ["redis", "s3"])
            #expect(tiers.allSatisfy { $0["breaker"] as? String == "closed" }, "\(stats.stdout)")
            #expect(shared["name"] as? String == "redis+s3")
            let text = try await cli.run(["cache", "stats"], environment: environment)
            #expect(text.stdout.contains("(redis)") && text.stdout.contains("(s3)"), "\(text.stdout)")

            let forget = try await cli.run(["cache", "forget", url, "--json"], environment: environment)
            #expect(forget.jsonLines.first?["shared"] as? Int == 1, "\(forget.stdout) \(forget.stderr)")
            // Gone from both: a fresh process on S3 alone, then one on Redis alone, each go to the origin.
            for (name, only) in [("b", tier), ("c", redis.url().absoluteString)] {
                let fresh = try await CLIRunner(cacheDirectory: work.appendingPathComponent(name)).run(
                    ["get", url, "--json", "--shared-cache", only], environment: credentials)
                #expect(fresh.jsonLines.first?["source"] as? String == "network", "\(only): \(fresh.stderr)")
            }
            #expect(origin.requestCount(for: "/stack/forget.png") == 3)
            await origin.stop()
        }
    }
}
