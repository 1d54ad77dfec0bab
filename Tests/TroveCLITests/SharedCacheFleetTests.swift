import FixtureServer
import Foundation
import Testing
import TroveTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A fleet of `trove` processes, each with its own disk, sharing one real redis-server: each URL is
/// fetched once, a process with an empty disk is served from the tier, a lease holder's death and Redis's
/// own death are survived.
@Suite(.serialized) struct SharedCacheFleetTests {
    static let image = try! Data(contentsOf: Fixtures.images.appendingPathComponent("badge.png"))
    static let paths = (0..<100).map { "/fleet/\($0).png" }

    /// A loopback origin serving `paths` (each answer optionally delayed) and a file listing their URLs.
    static func origin(delay: Duration? = nil, in work: URL) async throws -> (FixtureServer, URL) {
        let route: FixtureServer.Route =
            delay.map { .delayed(image, contentType: "image/png", delay: $0) }
            ?? .file(image, contentType: "image/png")
        let server = FixtureServer(routes: Dictionary(uniqueKeysWithValues: paths.map { ($0, route) }))
        try await server.start()
        let list = work.appendingPathComponent("urls.txt")
        try paths.map { server.url($0).absoluteString }.joined(separator: "\n").write(
            to: list, atomically: true, encoding: .utf8)
        return (server, list)
    }

    /// `trove prefetch` by several processes at once, each with its own cache directory under `work`.
    static func prefetch(
        _ processes: Range<Int>, list: URL, redis: URL, work: URL,
        extra: [String] = []
    ) async throws -> [CLIRunner.Result] {
        try await withThrowingTaskGroup(of: (Int, CLIRunner.Result).self) { group in
            for index in processes {
                group.addTask {
                    let directory = work.appendingPathComponent("cache-\(index)")
                    let cli = CLIRunner(cacheDirectory: directory)
                    return (
                        index,
                        try await cli.run(
                            [
                                "prefetch", list.path, "--json", "--cache-dir", directory.path,
                                "--shared-cache", redis.absoluteString
                            ] + extra)
                    )
                }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }.sorted { $0.key < $1.key }.map(\.value)
        }
    }

    @Test func fourProcessesFetchEachURLOnceAndAFifthIsServedFromTheTier() async throws {
        try await withRedisServer { redis in
            let work = try temporaryDirectory()
            defer { removeTemporaryDirectory(work) }
            let (origin, list) = try await Self.origin(in: work)

            let fleet = try await Self.prefetch(0..<4, list: list, redis: redis.url(), work: work)
            for result in fleet {
                #expect(result.status == 0, "stderr: \(result.stderr)")
                let summary = try #require(result.jsonLines.first)
                #expect(summary["total"] as? Int == 100)
                #expect(summary["failed"] as? Int == 0)
            }
            for path in Self.paths { #expect(origin.requestCount(for: path) == 1, "\(path)") }
            #expect(fleet.compactMap { $0.jsonLines.first?["fetched"] as? Int }.reduce(0, +) == 100)

            let fifth = try await Self.prefetch(4..<5, list: list, redis: redis.url(), work: work)[0]
            #expect(fifth.status == 0, "stderr: \(fifth.stderr)")
            #expect(fifth.jsonLines.first?["shared"] as? Int == 100)
            #expect(fifth.jsonLines.first?["fetched"] as? Int == 0)
            #expect(origin.requests.count == 100)

            // `get` reports the tier as the source; the bytes are the origin's.
            let fresh = work.appendingPathComponent("get")
            let output = work.appendingPathComponent("out.png")
            let get = try await CLIRunner(cacheDirectory: fresh).run(
                [
                    "get", origin.url(Self.paths[7]).absoluteString, "--json", "-o", output.path,
                    "--shared-cache", redis.url().absoluteString
                ])
            #expect(get.status == 0, "stderr: \(get.stderr)")
            #expect(get.jsonLines.first?["source"] as? String == "shared")
            #expect(try Data(contentsOf: output) == Self.image)
            #expect(origin.requests.count == 100)

            // Every process published its counts: the fleet's hits and stores, and a closed breaker.
            let stats = try await CLIRunner(cacheDirectory: fresh).run(
                ["cache", "stats", "--json", "--shared-cache", redis.url().absoluteString])
            #expect(stats.status == 0, "stderr: \(stats.stderr)")
            let shared = try #require(stats.jsonLines.first?["shared"] as? [String: Any])
            #expect(shared["breaker"] as? String == "closed")
            #expect(shared["stores"] as? Int == 100)
            #expect((shared["hits"] as? Int ?? 0) >= 101)
            #expect(shared["errors"] as? Int == 0)
            await origin.stop()
        }
    }

    @Test func aLeaseHolderKilledMidFetchHoldsTheOthersNoLongerThanItsLease() async throws {
        try await withRedisServer { redis in
            let work = try temporaryDirectory()
            defer { removeTemporaryDirectory(work) }
            let gate = FixtureGate()
            let origin = FixtureServer(routes: [
                // The first request hangs until the test ends; the next answers after a second.
                "/slow.png": .sequence([
                    .gated(Self.image, contentType: "image/png", gate: gate),
                    .delayed(Self.image, contentType: "image/png", delay: .seconds(1))
                ])
            ])
            try await origin.start()
            let url = origin.url("/slow.png").absoluteString
            let arguments = [
                "get", url, "--json", "--shared-cache", redis.url().absoluteString,
                "--shared-cache-lease", "2", "--deadline", "60"
            ]

            let holder = Process()
            holder.executableURL = CLIRunner.binary
            holder.arguments = arguments + ["--cache-dir", work.appendingPathComponent("holder").path]
            holder.standardOutput = FileHandle.nullDevice
            holder.standardError = FileHandle.nullDevice
            try holder.run()
            let arrived = await eventually(within: .seconds(30)) { gate.arrivals == 1 }
            #expect(arrived)
            kill(holder.processIdentifier, SIGKILL)

            let start = ContinuousClock.now
            let others = try await withThrowingTaskGroup(of: CLIRunner.Result.self) { group in
                for index in 0..<2 {
                    group.addTask {
                        let directory = work.appendingPathComponent("other-\(index)")
                        return try await CLIRunner(cacheDirectory: directory).run(
                            arguments + ["--cache-dir", directory.path])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let elapsed = ContinuousClock.now - start
            for result in others {
                #expect(result.status == 0, "stderr: \(result.stderr)")
            }
            let sources = others.compactMap { $0.jsonLines.first?["source"] as? String }.sorted()
            #expect(sources == ["network", "shared"])
            // The dead holder's request, then exactly one more once its lease ran out.
            #expect(origin.requestCount(for: "/slow.png") == 2)
            // Lease (2 s) plus one fetch (1 s), with room for starting processes; far below the 20 s deadline.
            #expect(elapsed < .seconds(12), "took \(elapsed)")
            gate.open()
            while holder.isRunning { try await Task.sleep(for: .milliseconds(10)) }
            await origin.stop()
        }
    }

    @Test func redisKilledMidRunThenRestartedIsSurvivedAndUsedAgain() async throws {
        try await withRedisServer { redis in
            let work = try temporaryDirectory()
            defer { removeTemporaryDirectory(work) }
            let (origin, list) = try await Self.origin(delay: .milliseconds(80), in: work)

            async let fleet = Self.prefetch(
                0..<3, list: list, redis: redis.url(), work: work,
                extra: ["--concurrency", "2", "--shared-cache-cooldown", "0.2"])
            let reachedKill = await eventually(within: .seconds(30)) { origin.requests.count >= 25 }
            await redis.kill()
            let reachedRestart = await eventually(within: .seconds(30)) { origin.requests.count >= 50 }
            try await redis.restart()
            let results = try await fleet
            #expect(reachedKill && reachedRestart)

            for result in results {
                #expect(result.status == 0, "stderr: \(result.stderr)")
                let summary = try #require(result.jsonLines.first)
                #expect(summary["total"] as? Int == 100)
                #expect(summary["failed"] as? Int == 0)
            }
            // Every result correct: what one process cached reads back as the origin's bytes.
            let output = work.appendingPathComponent("out")
            let check = try await CLIRunner(cacheDirectory: work.appendingPathComponent("cache-0")).run(
                ["get"] + Self.paths.suffix(5).map { origin.url($0).absoluteString }
                    + ["--policy", "cache-only", "-o", output.path])
            #expect(check.status == 0, "stderr: \(check.stderr)")
            for file in try FileManager.default.contentsOfDirectory(at: output, includingPropertiesForKeys: nil) {
                #expect(try Data(contentsOf: file) == Self.image, "\(file.lastPathComponent)")
            }
            // The restarted server started empty: every entry it holds, the same processes stored after the restart.
            let keys = try await runSubprocess(
                URL(fileURLWithPath: "/usr/bin/env"),
                ["redis-cli", "-p", String(redis.port), "--scan", "--pattern", "trove:http*"])
            let stored = String(decoding: keys.stdout, as: UTF8.self).split(separator: "\n").count
            #expect(stored > 0)
            let stats = try await CLIRunner(cacheDirectory: work.appendingPathComponent("stats")).run(
                ["cache", "stats", "--json", "--shared-cache", redis.url().absoluteString])
            #expect(stats.status == 0, "stderr: \(stats.stderr)")
            let shared = try #require(stats.jsonLines.first?["shared"] as? [String: Any])
            #expect(shared["breaker"] as? String == "closed")
            #expect((shared["stores"] as? Int ?? 0) > 0)
            await origin.stop()
        }
    }

    @Test func aWrongPasswordFailsNamingAuthentication() async throws {
        try await withRedisServer(password: "fleet-secret") { redis in
            let work = try temporaryDirectory()
            defer { removeTemporaryDirectory(work) }
            let (origin, _) = try await Self.origin(in: work)
            let result = try await CLIRunner(cacheDirectory: work).run(
                [
                    "get", origin.url(Self.paths[0]).absoluteString, "--shared-cache",
                    redis.url(password: "not-it").absoluteString
                ])
            #expect(result.status == 1)
            #expect(result.stderr.contains("authentication"), "stderr: \(result.stderr)")
            #expect(!result.stderr.contains("not-it"), "the password must not be echoed: \(result.stderr)")
            #expect(origin.requests.isEmpty)
            await origin.stop()
        }
    }

    @Test func theEnvironmentVariableNamesTheTierAndABadOneIsAUsageError() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        var environment = ProcessInfo.processInfo.environment
        environment["TROVE_CACHE_DIR"] = work.path
        environment["TROVE_SHARED_CACHE"] = "memcached://127.0.0.1:11211"
        let bad = try await runSubprocess(CLIRunner.binary, ["get", "data:,x"], environment: environment)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("memcached") && bad.stderr.contains("redis"), "stderr: \(bad.stderr)")
        let notURL = try await CLIRunner(cacheDirectory: work).run(["prefetch", "-", "--shared-cache", "nonsense"])
        #expect(notURL.status == 2)
        #expect(notURL.stderr.contains("--shared-cache"), "stderr: \(notURL.stderr)")
    }
}
