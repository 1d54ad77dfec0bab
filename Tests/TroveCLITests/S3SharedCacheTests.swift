import FixtureServer
import Foundation
import Testing
import TroveTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Starts one SeaweedFS for the suite it is attached to and stops it when the suite's last test has run;
/// the tests reach it through `SuiteSeaweed.current`.
struct SuiteSeaweed: SuiteTrait, TestScoping {
    /// The suite's server while its tests run.
    @TaskLocal static var current: SeaweedTestServer?

    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withSeaweedServer { server in
            try await Self.$current.withValue(server) { try await function() }
        }
    }
}

/// The `trove` binary with the `s3://` shared tier on a real SeaweedFS (SigV4 auth on, loopback only): a
/// fresh process or server on an empty disk is answered from S3 without the origin, and bad settings stop
/// `trove serve` with a message that names the bucket or the credential to fix, never the secret.
@Suite(.serialized, SuiteSeaweed()) struct S3SharedCacheTests {
    static let image = try! Data(contentsOf: Fixtures.images.appendingPathComponent("badge.png"))

    var seaweed: SeaweedTestServer { SuiteSeaweed.current! }

    /// `s3://BUCKET/PREFIX?endpoint=…&region=us-east-1` for the suite's server (or another bucket or endpoint).
    func tierURL(prefix: String, bucket: String? = nil, endpoint: URL? = nil) -> String {
        let endpoint = (endpoint ?? seaweed.endpoint).absoluteString
        return "s3://\(bucket ?? seaweed.bucket)/\(prefix)?endpoint=\(endpoint)&region=us-east-1"
    }

    /// The credentials of the server's identity (or a wrong secret) as the AWS variables.
    func credentials(secret: String? = nil) -> [String: String] {
        [
            "AWS_ACCESS_KEY_ID": seaweed.accessKeyID,
            "AWS_SECRET_ACCESS_KEY": secret ?? seaweed.secretAccessKey
        ]
    }

    @Test func aFreshProcessIsAnsweredFromS3WithoutTheOrigin() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let origin = FixtureServer(routes: ["/s3/get.png": .file(Self.image, contentType: "image/png")])
        try await origin.start()
        let url = origin.url("/s3/get.png").absoluteString
        let tier = tierURL(prefix: "get-\(UUID().uuidString.prefix(8))")

        let first = try await CLIRunner(cacheDirectory: work.appendingPathComponent("a")).run(
            ["get", url, "--json", "--shared-cache", tier], environment: credentials())
        #expect(first.status == 0, "stderr: \(first.stderr)")
        #expect(first.jsonLines.first?["source"] as? String == "network")

        let output = work.appendingPathComponent("out.png")
        let second = try await CLIRunner(cacheDirectory: work.appendingPathComponent("b")).run(
            ["get", url, "--json", "-o", output.path, "--shared-cache", tier], environment: credentials())
        #expect(second.status == 0, "stderr: \(second.stderr)")
        #expect(second.jsonLines.first?["source"] as? String == "shared")
        #expect(try Data(contentsOf: output) == Self.image)
        #expect(origin.requestCount(for: "/s3/get.png") == 1)
        #expect(!first.stderr.contains(seaweed.secretAccessKey) && !second.stderr.contains(seaweed.secretAccessKey))
        await origin.stop()
    }

    @Test func aSecondServerOnAnEmptyDiskIsAnsweredFromS3() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let origin = FixtureServer(routes: ["/s3/serve.png": .file(Self.image, contentType: "image/png")])
        try await origin.start()
        let source = origin.url("/s3/serve.png").absoluteString
        let tier = tierURL(prefix: "serve-\(UUID().uuidString.prefix(8))")
        func server(_ name: String) throws -> TroveServeProcess {
            TroveServeProcess(
                port: try freeLoopbackPort(),
                arguments: [
                    "--cache-dir", work.appendingPathComponent(name).path, "--allow-loopback-sources",
                    "--shared-cache", tier, "--health-grace", "1", "--drain-seconds", "5", "--log-level", "error"
                ], environment: credentials())
        }

        let first = try server("first")
        try await first.start()
        let answer = await get(port: first.port, path: "/_/rs:fit:20:20/plain/\(source)@png")
        #expect(answer?.status == 200 && answer?.isComplete == true, "\(String(describing: answer))")
        // A drained server has written what it stored behind its answers.
        await first.signal(SIGTERM)
        #expect(await first.waitForExit() != nil)
        #expect(origin.requestCount(for: "/s3/serve.png") == 1)

        let second = try server("second")
        try await second.start()
        // The stored result, and a new size made from the source the first server stored.
        for width in [20, 24] {
            let answer = await get(port: second.port, path: "/_/rs:fit:\(width):\(width)/plain/\(source)@png")
            #expect(answer?.status == 200 && answer?.isComplete == true, "\(width): \(String(describing: answer))")
        }
        #expect(origin.requestCount(for: "/s3/serve.png") == 1)
        await second.stop()
        await origin.stop()
    }

    @Test func cacheForgetRemovesTheS3CopyAndCacheStatsAsksTheBucket() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let origin = FixtureServer(routes: ["/s3/forget.png": .file(Self.image, contentType: "image/png")])
        try await origin.start()
        let url = origin.url("/s3/forget.png").absoluteString
        let tier = tierURL(prefix: "forget-\(UUID().uuidString.prefix(8))")
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("a"))

        let first = try await cli.run(["get", url, "--json", "--shared-cache", tier], environment: credentials())
        #expect(first.jsonLines.first?["source"] as? String == "network", "stderr: \(first.stderr)")
        let forget = try await cli.run(
            ["cache", "forget", url, "--json", "--shared-cache", tier], environment: credentials())
        #expect(forget.status == 0, "stderr: \(forget.stderr)")
        #expect(forget.jsonLines.first?["shared"] as? Int == 1, "\(forget.stdout)")
        #expect((forget.jsonLines.first?["disk"] as? Int ?? 0) >= 1, "\(forget.stdout)")
        // Gone from S3 too: a fresh process goes to the origin again.
        let again = try await CLIRunner(cacheDirectory: work.appendingPathComponent("b")).run(
            ["get", url, "--json", "--shared-cache", tier], environment: credentials())
        #expect(again.jsonLines.first?["source"] as? String == "network", "stderr: \(again.stderr)")
        #expect(origin.requestCount(for: "/s3/forget.png") == 2)

        let stats = try await cli.run(["cache", "stats", "--json", "--shared-cache", tier], environment: credentials())
        #expect(stats.status == 0, "stderr: \(stats.stderr)")
        let shared = try #require(stats.jsonLines.first?["shared"] as? [String: Any])
        #expect(shared["breaker"] as? String == "closed")
        #expect(shared["errors"] as? Int == 0)

        // A server that is down is reported as such, naming the endpoint, rather than as zeros.
        let nowhere = URL(string: "http://127.0.0.1:\(try freeLoopbackPort())")!
        let down = try await cli.run(
            ["cache", "stats", "--json", "--shared-cache", tierURL(prefix: "p", endpoint: nowhere)],
            environment: credentials())
        #expect(down.status == 0, "stderr: \(down.stderr)")
        let unavailable = try #require(down.jsonLines.first?["shared"] as? [String: Any])
        #expect(unavailable["breaker"] as? String == "open")
        #expect((unavailable["unavailable"] as? String)?.contains(nowhere.absoluteString) == true, "\(down.stdout)")

        // Refused credentials are a mistake to fix: named, the secret never shown.
        let wrong = "wrong-secret-\(UUID().uuidString.prefix(8))"
        let refused = try await cli.run(
            ["cache", "stats", "--json", "--shared-cache", tier], environment: credentials(secret: wrong))
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("AWS_SECRET_ACCESS_KEY"), "stderr: \(refused.stderr)")
        #expect(!(refused.stdout + refused.stderr).contains(wrong))
        await origin.stop()
    }

    /// `trove serve` with these settings, expected to refuse to start; its result.
    func refusedServe(tier: String, secret: String? = nil) async throws -> CLIRunner.Result {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        return try await CLIRunner(cacheDirectory: work).run(
            ["serve", "--port", String(try freeLoopbackPort()), "--cache-dir", work.path, "--shared-cache", tier],
            environment: credentials(secret: secret))
    }

    @Test func aBucketThatDoesNotExistStopsServeNamingIt() async throws {
        let result = try await refusedServe(tier: tierURL(prefix: "p", bucket: "no-such-bucket"))
        #expect(result.status != 0)
        #expect(result.stderr.contains("bucket no-such-bucket does not exist"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains(seaweed.endpoint.absoluteString), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("create it or fix the bucket name"), "stderr: \(result.stderr)")
        #expect(!result.stderr.contains(seaweed.secretAccessKey))
    }

    @Test func aWrongSecretStopsServeNamingTheVariableNotTheSecret() async throws {
        let wrong = "wrong-secret-\(UUID().uuidString.prefix(8))"
        let result = try await refusedServe(tier: tierURL(prefix: "p"), secret: wrong)
        #expect(result.status != 0)
        #expect(result.stderr.contains("credentials were refused"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("AWS_SECRET_ACCESS_KEY"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains(seaweed.bucket) || result.stderr.contains(seaweed.endpoint.absoluteString))
        #expect(!result.stderr.contains(wrong) && !result.stderr.contains(seaweed.secretAccessKey))
    }

    /// An S3 server down at start-up is an outage, not a mistake: the server starts, says so once naming the
    /// endpoint, and serves from the origin.
    @Test func anUnreachableServerAtStartUpIsWarnedAboutAndServingGoesOn() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let origin = FixtureServer(routes: ["/s3/down.png": .file(Self.image, contentType: "image/png")])
        try await origin.start()
        let nowhere = URL(string: "http://127.0.0.1:\(try freeLoopbackPort())")!
        let port = try freeLoopbackPort()
        let log = work.appendingPathComponent("stderr.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = CLIRunner.binary
        process.arguments = [
            "serve", "--port", String(port), "--cache-dir", work.appendingPathComponent("cache").path,
            "--allow-loopback-sources", "--shared-cache", tierURL(prefix: "p", endpoint: nowhere)
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(credentials()) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let healthy = await eventually(within: .seconds(30)) {
            loopbackGet(port: port, path: "/health", timeout: 2)?.status == 200
        }
        #expect(healthy)
        let stderr = String(decoding: try Data(contentsOf: log), as: UTF8.self)
        #expect(stderr.contains("did not answer at start-up"), "stderr: \(stderr)")
        #expect(stderr.contains(nowhere.absoluteString), "stderr: \(stderr)")
        #expect(!stderr.contains(seaweed.secretAccessKey))
        let answer = await get(port: port, path: "/_/rs:fit:20:20/plain/\(origin.url("/s3/down.png"))@png")
        #expect(answer?.status == 200 && answer?.isComplete == true, "\(String(describing: answer))")
        #expect(origin.requestCount(for: "/s3/down.png") == 1)
        await origin.stop()
    }
}
