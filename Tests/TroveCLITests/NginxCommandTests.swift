import Foundation
import Testing
import TroveTestSupport

/// `trove get` against a real nginx on loopback: HTTP caching as a real origin sends it (its ETag, Date and
/// 304s), counted from nginx's access log. Each test starts its own nginx and stops it.
@Suite struct NginxCommandTests {
    /// Every fixture image, under prefixes that set the caching headers named.
    static let locations: [String: [String: String]] = [
        "/plain/": [:],
        "/max-age-0/": ["Cache-Control": "max-age=0"],
        "/max-age-2/": ["Cache-Control": "max-age=2"],
        "/must-revalidate/": ["Cache-Control": "max-age=0, must-revalidate"],
        "/no-store/": ["Cache-Control": "no-store"]
    ]

    /// Runs `body` with nginx serving the fixture images and a CLI on a fresh cache directory.
    func withOrigin(_ body: (NginxTestServer, CLIRunner, URL) async throws -> Void) async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))
        try await withNginxServer(serving: Fixtures.images, locations: Self.locations) { nginx in
            try await body(nginx, cli, work)
        }
    }

    /// nginx's ETag for a file it serves: its modification time and size in hex.
    static func etag(of file: URL) throws -> String {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        let modified = Int((attributes[.modificationDate] as? Date ?? .distantPast).timeIntervalSince1970)
        let size = attributes[.size] as? Int ?? 0
        return "\"\(String(modified, radix: 16))-\(String(size, radix: 16))\""
    }

    @Test func maxAgeServesFromDiskThenOneConditionalRequestKeepsTheEntry() async throws {
        try await withOrigin { nginx, cli, work in
            let path = "/max-age-2/badge.png"
            let out = work.appendingPathComponent("out.png")
            let arguments = ["get", nginx.url(path).absoluteString, "-o", out.path, "--json"]
            let original = try Data(contentsOf: Fixtures.image("badge.png"))

            let first = try await cli.run(arguments)
            let fetched = ContinuousClock.now
            let second = try await cli.run(arguments)
            let secondAfter = ContinuousClock.now - fetched
            #expect(first.status == 0 && second.status == 0, "stderr: \(first.stderr) \(second.stderr)")
            #expect(first.jsonLines.first?["source"] as? String == "network")
            #expect(second.jsonLines.first?["source"] as? String == "disk", "second get ended \(secondAfter) after")
            #expect(await nginx.requests(for: path).count == 1)

            // The one real wait: max-age=2 runs out.
            try await Task.sleep(until: fetched + .seconds(3), clock: .continuous)
            let third = try await cli.run(arguments)
            let revalidated = ContinuousClock.now
            let fourth = try await cli.run(arguments)
            let fourthAfter = ContinuousClock.now - revalidated
            #expect(third.status == 0 && fourth.status == 0, "stderr: \(third.stderr) \(fourth.stderr)")
            let log = await nginx.requests(for: path)
            #expect(log.count == 2, "\(log)")
            #expect(log.first?.status == 200 && log.first?.isConditional == false)
            #expect(log.last?.status == 304)
            let etag = try Self.etag(of: Fixtures.image("badge.png"))
            #expect(log.last?.ifNoneMatch == etag)
            for line in [third, fourth].compactMap(\.jsonLines.first) {
                #expect(line["source"] as? String == "disk" && line["stale"] as? Bool == false, "\(line)")
                #expect(line["bytes"] as? Int == original.count)
            }
            #expect(fourthAfter < .seconds(2), "the fourth get could not run while the 304's max-age held")
            #expect(try Data(contentsOf: out) == original)
        }
    }

    @Test func noStoreIsReturnedAndNothingIsWrittenToTheCache() async throws {
        try await withOrigin { nginx, cli, work in
            let path = "/no-store/tiles.png"
            let out = work.appendingPathComponent("out.png")
            let arguments = ["get", nginx.url(path).absoluteString, "-o", out.path, "--json"]
            let first = try await cli.run(arguments)
            #expect(first.status == 0, "stderr: \(first.stderr)")
            #expect(first.jsonLines.first?["source"] as? String == "network")
            #expect(try Data(contentsOf: out) == Data(contentsOf: Fixtures.image("tiles.png")))
            for folder in ["entries", "tmp"] {
                #expect(filesUnder(cli.cacheDirectory.appendingPathComponent(folder)).isEmpty, "\(folder)")
            }
            let stats = try await cli.run(["cache", "stats", "--json"])
            #expect(stats.jsonLines.first?["entries"] as? Int == 0, "stdout: \(stats.stdout)")
            // Nothing kept, so the next get asks again.
            let second = try await cli.run(arguments)
            #expect(second.jsonLines.first?["source"] as? String == "network")
            #expect(await nginx.requests(for: path).map(\.status) == [200, 200])
        }
    }

    @Test func withNginxStoppedAStaleCopyIsDeliveredUnlessMustRevalidate() async throws {
        try await withOrigin { nginx, cli, _ in
            let strict = nginx.url("/must-revalidate/badge.png").absoluteString
            let seeded = try await cli.run(["get", strict, "--json"])
            #expect(seeded.status == 0, "stderr: \(seeded.stderr)")
            // max-age=0: stale at once, so no wait. Stops nginx, then `--policy refresh` exits 0 marked stale.
            try await CLIScenarios.refreshWithTheOriginStopped(nginx, path: "/max-age-0/badge.png", cli: cli)
            let plain = try await cli.run(["get", nginx.url("/max-age-0/badge.png").absoluteString, "--json"])
            #expect(plain.status == 0 && plain.jsonLines.first?["stale"] as? Bool == true, "\(plain.stderr)")
            // must-revalidate: never delivered stale; the error names the origin's failure.
            for policy in ["use-cache", "refresh"] {
                let refused = try await cli.run(["get", strict, "--policy", policy, "--json"])
                #expect(refused.status == 1, "\(policy): \(refused.stdout)")
                #expect(refused.stderr.contains("could not fetch \(strict)"), "\(policy): \(refused.stderr)")
                #expect(refused.jsonLines.first?["error"] is String, "\(policy): \(refused.stdout)")
            }
        }
    }

    @Test func aRememberedFourOhFourNamesIt() async throws {
        try await withOrigin { nginx, cli, _ in
            try await CLIScenarios.aRememberedFailureNamesItsCause(nginx, path: "/plain/missing.png", cli: cli)
            #expect(await nginx.requests(atLeast: 1).map(\.status) == [404])
        }
    }

    @Test func aConfigFilesLimitsAreWhatCacheStatsReportsAndWhatGetObeys() async throws {
        try await withOrigin { nginx, cli, work in
            let roomy = work.appendingPathComponent("roomy.json"), tiny = work.appendingPathComponent("tiny.json")
            try Data(#"{"disk": {"byteLimit": 3145728, "countLimit": 7}}"#.utf8).write(to: roomy)
            // Smaller than badge.png (3,910 bytes): a get fetches it but cannot keep it.
            try Data(#"{"disk": {"byteLimit": 1000}}"#.utf8).write(to: tiny)
            let url = nginx.url("/plain/badge.png").absoluteString

            let kept = try await cli.run(["get", url, "--config", roomy.path, "--json"])
            let stats = try await cli.run(["cache", "stats", "--config", roomy.path, "--json"])
            #expect(kept.status == 0, "stderr: \(kept.stderr)")
            #expect(stats.jsonLines.first?["limitBytes"] as? Int == 3 << 20, "stdout: \(stats.stdout)")
            #expect(stats.jsonLines.first?["entries"] as? Int == 1)

            let small = CLIRunner(cacheDirectory: work.appendingPathComponent("small"))
            for _ in 0..<2 {
                let result = try await small.run(["get", url, "--config", tiny.path, "--json"])
                #expect(result.status == 0 && result.jsonLines.first?["source"] as? String == "network")
            }
            let smallStats = try await small.run(["cache", "stats", "--config", tiny.path, "--json"])
            #expect(smallStats.jsonLines.first?["limitBytes"] as? Int == 1000, "stdout: \(smallStats.stdout)")
            #expect(smallStats.jsonLines.first?["entries"] as? Int == 0)
            #expect(await nginx.requests(for: "/plain/badge.png").count == 3)
        }
    }

    @Test func httpsFromAnUnknownCAFailsUntilTheCABundleOrAnInsecureHostIsGiven() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        try await withNginxServer(
            serving: Fixtures.images, locations: ["/plain/": [:]], certificate: .localhost
        ) { nginx in
            let url = nginx.url("/plain/badge.png").absoluteString
            let original = try Data(contentsOf: Fixtures.image("badge.png"))
            let out = work.appendingPathComponent("out.png")

            let refused = try await CLIRunner(cacheDirectory: work.appendingPathComponent("refused"))
                .run(["get", url, "-o", out.path, "--json"])
            #expect(refused.status == 1, "stdout: \(refused.stdout)")
            #expect(refused.stderr.contains("the TLS certificate of 127.0.0.1 was not accepted"), "\(refused.stderr)")
            #expect(refused.stderr.contains("--ca-bundle FILE"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))

            let trusted = try await CLIRunner(cacheDirectory: work.appendingPathComponent("trusted"))
                .run(["get", url, "-o", out.path, "--json", "--ca-bundle", NginxTestServer.Certificate.testCA.path])
            #expect(trusted.status == 0, "stderr: \(trusted.stderr)")
            #expect(trusted.jsonLines.first?["source"] as? String == "network")
            #expect(try Data(contentsOf: out) == original)
            #expect(!trusted.stderr.contains("not verified"), "\(trusted.stderr)")

            // The same through a config file, and the flag: each warns that the host goes unchecked.
            let config = work.appendingPathComponent("insecure.json")
            try Data(#"{"tls": {"insecureHosts": ["127.0.0.1"]}}"#.utf8).write(to: config)
            for (name, options) in [("flag", ["--insecure-host", "127.0.0.1"]), ("config", ["--config", config.path])] {
                let insecure = try await CLIRunner(cacheDirectory: work.appendingPathComponent(name))
                    .run(["get", url, "--json"] + options)
                #expect(insecure.status == 0, "\(name): \(insecure.stderr)")
                #expect(insecure.jsonLines.first?["bytes"] as? Int == original.count, "\(name): \(insecure.stdout)")
                #expect(
                    insecure.stderr.contains("warning") && insecure.stderr.contains("are not verified")
                        && insecure.stderr.contains("127.0.0.1"), "\(name): \(insecure.stderr)")
            }
            let missing = try await CLIRunner(cacheDirectory: work.appendingPathComponent("missing"))
                .run(["get", url, "--ca-bundle", work.appendingPathComponent("none.pem").path])
            #expect(missing.status != 0 && missing.stderr.contains("none.pem does not exist"), "\(missing.stderr)")
            #expect(await nginx.requests(atLeast: 3).map(\.status) == [200, 200, 200])
        }
    }

    @Test func changingTheHasherBackAndForthFetchesEachImageOnce() async throws {
        try await withOrigin { nginx, cli, _ in
            try await CLIScenarios.changingTheHasherKeepsEveryEntry(
                nginx, paths: ("/plain/badge.png", "/plain/tiles.png"), cli: cli)
            #expect(await nginx.requests().allSatisfy { $0.status == 200 && !$0.isConditional })
        }
    }
}
