import Foundation
import Testing
import TorturePayload
import TroveDiskCache
import TroveTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Crash safety and sharing across processes, with Tools/DiskCacheTorture as the other process.
@Suite("Several processes and SIGKILL")
struct MultiProcessTests {
    @Test func aWriterKilledAtRandomInstantsLeavesOnlyWholeEntries() async throws {
        let tool = try helperExecutable("DiskCacheTorture")
        let dir = try TemporaryDirectory()
        let keys = (0..<4).map { "key-\($0)" }
        // At least 24 kills, and more until 3 have landed inside a write (a kill's instant is random).
        let minimumRounds = 24, maximumRounds = 150, wantedMidWrite = 3
        var roundsKilledMidWrite = 0
        var round = 0
        while round < minimumRounds || (roundsKilledMidWrite < wantedMidWrite && round < maximumRounds) {
            defer { round += 1 }
            let writer = try ChildProcess(tool, ["write", dir.path, String(keys.count), String(round)])
            let outcome = try await offThePool { () -> ProcessOutcome in
                _ = writer.readLine()  // "ready": the cache is open and the writes begin
                usleep(UInt32.random(in: 1_000...60_000))
                kill(writer.pid, SIGKILL)
                return writer.finish()
            }
            #expect(
                outcome.reason == .uncaughtSignal && outcome.status == SIGKILL,
                "round \(round): the writer ended otherwise: \(outcome.standardError)")
            // A temp file of this writer (its pid is in the name) means the kill landed inside a write.
            if try temporaryLeftovers(in: dir).contains(where: { $0.contains(".\(writer.pid).") }) {
                roundsKilledMidWrite += 1
            }
        }
        #expect(
            roundsKilledMidWrite >= wantedMidWrite, "only \(roundsKilledMidWrite) of \(round) kills landed mid-write")

        let cache = try DiskCache(directory: dir.url)
        await cache.waitForIndex()
        #expect(try temporaryLeftovers(in: dir) == [])
        var whole = 0
        for key in keys {
            guard let data = try await cache.data(forKey: key) else { continue }
            #expect(
                TorturePayload.isWholeVersion(data, of: key), "\(key) read \(data.count) bytes of no written version")
            whole += 1
        }
        #expect(whole >= 1)
        let report = try await cache.verify()
        #expect(report.corrupt == 0)
        #expect(report.checked == whole)
    }

    @Test func twoProcessesWritingAndReadingTheSameKeysSeeOnlyWholeVersions() async throws {
        let tool = try helperExecutable("DiskCacheTorture")
        let dir = try TemporaryDirectory()
        let keys = (0..<4).map { "key-\($0)" }
        let children = try (1...2).map { writer in
            try ChildProcess(tool, ["mix", dir.path, String(keys.count), String(writer), "300"])
        }
        // This process reads the same keys while the two children write and read them.
        let reader = try DiskCache(directory: dir.url)
        var reads = 0, hits = 0, mixed = 0
        var passesAfterExit = 0
        while passesAfterExit < 3 {
            if !children.contains(where: \.isRunning) { passesAfterExit += 1 }
            for key in keys {
                reads += 1
                guard let data = try await reader.data(forKey: key) else { continue }
                hits += 1
                if !TorturePayload.isWholeVersion(data, of: key) { mixed += 1 }
            }
        }
        #expect(mixed == 0)
        #expect(hits > 0)

        for child in children {
            let outcome = try await offThePool { child.finish() }
            #expect(
                outcome.reason == .exit && outcome.status == 0, "\(outcome.standardOutput) \(outcome.standardError)")
            let counts = Dictionary(
                uniqueKeysWithValues: outcome.standardOutput
                    .split(whereSeparator: \.isWhitespace)
                    .compactMap { field -> (String, Int)? in
                        let pair = field.split(separator: "=")
                        guard pair.count == 2, let value = Int(pair[1]) else { return nil }
                        return (String(pair[0]), value)
                    })
            #expect(counts["reads"] == 300 * keys.count)
            #expect(counts["bad"] == 0)
            #expect((counts["hits"] ?? 0) > 0)
        }
        #expect(try await reader.verify().corrupt == 0)
    }
}
