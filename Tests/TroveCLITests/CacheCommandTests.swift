import Foundation
import Testing
import TroveTestSupport

/// Runs `trove` on the cache in `cacheDirectory`.
private func trove(_ arguments: [String], cacheDirectory: TemporaryDirectory) async throws -> CLIRunner.Result {
    try await CLIRunner(cacheDirectory: cacheDirectory.url).run(arguments)
}

/// The one line of `--json` output, as a dictionary.
private func jsonObject(_ result: CLIRunner.Result) throws -> [String: Any] {
    try #require(result.jsonLines.first, "no JSON line in: \(result.stdout)")
}

/// `trove cache ...` used as a person would: a subprocess on a temp cache directory.
@Suite("trove cache on the command line")
struct CacheCommandTests {
    @Test func putThenGetReturnsTheSameBytes() async throws {
        let cache = try TemporaryDirectory()
        let work = try TemporaryDirectory()
        let input = work.url.appendingPathComponent("input.bin")
        let bytes = incompressibleBytes(100_000)
        try bytes.write(to: input)

        let put = try await trove(["cache", "put", "my key", input.path, "--json"], cacheDirectory: cache)
        #expect(put.status == 0, "\(put.stderr)")
        let putReport = try jsonObject(put)
        #expect(putReport["key"] as? String == "my key")
        #expect(putReport["bytes"] as? Int == 100_000)

        let output = work.url.appendingPathComponent("output.bin")
        let get = try await trove(["cache", "get", "my key", "-o", output.path, "--json"], cacheDirectory: cache)
        #expect(get.status == 0, "\(get.stderr)")
        #expect(try Data(contentsOf: output) == bytes)
        #expect(try jsonObject(get)["bytes"] as? Int == 100_000)
        let toStdout = try await trove(["cache", "get", "my key"], cacheDirectory: cache)
        #expect(toStdout.output == bytes)
        #expect(toStdout.status == 0)

        let stats = try jsonObject(try await trove(["cache", "stats", "--json"], cacheDirectory: cache))
        #expect(stats["entries"] as? Int == 1)
        #expect((stats["bytes"] as? Int ?? 0) > 100_000)
        #expect(stats["compressed"] as? Int == 0)
        #expect(stats["limitBytes"] as? Int == 500 << 20)
        let list = try jsonObject(try await trove(["cache", "list", "--json"], cacheDirectory: cache))
        #expect(list["key"] as? String == "my key")

        let remove = try await trove(["cache", "rm", "my key", "--json"], cacheDirectory: cache)
        #expect(try jsonObject(remove)["removed"] as? Int == 1)
        let missing = try await trove(["cache", "get", "my key"], cacheDirectory: cache)
        #expect(missing.status == 1)
        #expect(missing.output.isEmpty)
        #expect(missing.stderr.contains("not cached: my key"))
        let removeAgain = try await trove(["cache", "rm", "my key"], cacheDirectory: cache)
        #expect(removeAgain.status == 1)
        #expect(removeAgain.stderr.contains("not cached: my key"))
    }

    @Test(arguments: [Damage.flipPayloadByte, .flipKeyByte, .truncate, .empty])
    func aDamagedEntryIsFoundByVerifyAndNeverServed(damage: Damage) async throws {
        let cache = try TemporaryDirectory()
        let work = try TemporaryDirectory()
        let input = work.url.appendingPathComponent("input.txt")
        try Data(String(repeating: "trustworthy bytes\n", count: 500).utf8).write(to: input)
        let entries = cache.url.appendingPathComponent("entries")

        func putAndDamage() async throws {
            let put = try await trove(["cache", "put", "doc", input.path, "--compress", "zlib"], cacheDirectory: cache)
            #expect(put.status == 0, "\(put.stderr)")
            let file = try #require(filesUnder(entries).first)
            var bytes = [UInt8](try Data(contentsOf: file))
            damage.apply(to: &bytes)
            try Data(bytes).write(to: file)
        }

        // verify reads the damaged entry, reports it and removes it.
        try await putAndDamage()
        let verify = try await trove(["cache", "verify", "--json"], cacheDirectory: cache)
        #expect(verify.status == 0, "\(verify.stderr)")
        let report = try jsonObject(verify)
        #expect(report["checked"] as? Int == 1)
        #expect(report["corrupt"] as? Int == 1)
        #expect(report["removed"] as? Int == 1)
        #expect(filesUnder(entries).isEmpty)

        // get misses (exit 1) and prints no bytes at all.
        try await putAndDamage()
        let output = work.url.appendingPathComponent("out.txt")
        let get = try await trove(["cache", "get", "doc", "-o", output.path], cacheDirectory: cache)
        #expect(get.status == 1)
        #expect(get.stderr.contains("not cached: doc"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let toStdout = try await trove(["cache", "get", "doc"], cacheDirectory: cache)
        #expect(toStdout.status == 1)
        #expect(toStdout.output.isEmpty)
        let stats = try jsonObject(try await trove(["cache", "stats", "--json"], cacheDirectory: cache))
        #expect(stats["entries"] as? Int == 0)
    }

    @Test func zlibStoresTextAtLeastThreeTimesSmaller() async throws {
        let cache = try TemporaryDirectory()
        let work = try TemporaryDirectory()
        let input = work.url.appendingPathComponent("log.txt")
        let text = (0..<2000).map { "\($0): GET /images/photo-\($0 % 97).png 200 OK in \($0 % 13) ms\n" }.joined()
        try Data(text.utf8).write(to: input)

        let put = try await trove(
            ["cache", "put", "log", input.path, "--compress", "zlib", "--json"],
            cacheDirectory: cache)
        #expect(put.status == 0, "\(put.stderr)")
        let report = try jsonObject(put)
        let original = try #require(report["bytes"] as? Int)
        let stored = try #require(report["storedBytes"] as? Int)
        #expect(original == text.utf8.count)
        #expect(report["compressed"] as? Bool == true)
        #expect(stored * 3 <= original, "zlib stored \(original) bytes of text in \(stored)")
        let entryFile = try #require(filesUnder(cache.url.appendingPathComponent("entries")).first)
        #expect(
            try #require(FileManager.default.attributesOfItem(atPath: entryFile.path)[.size] as? Int) * 3 <= original)

        let output = work.url.appendingPathComponent("back.txt")
        #expect(try await trove(["cache", "get", "log", "-o", output.path], cacheDirectory: cache).status == 0)
        #expect(try Data(contentsOf: output) == Data(text.utf8))
        let stats = try jsonObject(try await trove(["cache", "stats", "--json"], cacheDirectory: cache))
        #expect(stats["compressed"] as? Int == 1)
    }

    @Test(arguments: ["camera.png", "chelsea.png", "rocket.jpg"])
    func alreadyCompressedImagesAreStoredAsTheyAre(name: String) async throws {
        let cache = try TemporaryDirectory()
        let work = try TemporaryDirectory()
        let image = Fixtures.image(name)
        let bytes = try Data(contentsOf: image)

        let put = try await trove(
            ["cache", "put", name, image.path, "--compress", "zlib", "--json"],
            cacheDirectory: cache)
        #expect(put.status == 0, "\(put.stderr)")
        let report = try jsonObject(put)
        #expect(report["compressed"] as? Bool == false)
        #expect(report["storedBytes"] as? Int == bytes.count)

        let output = work.url.appendingPathComponent(name)
        #expect(try await trove(["cache", "get", name, "-o", output.path], cacheDirectory: cache).status == 0)
        #expect(try Data(contentsOf: output) == bytes)
    }

    @Test func clearTrimAndTheirUsageErrors() async throws {
        let cache = try TemporaryDirectory()
        let work = try TemporaryDirectory()
        for index in 0..<5 {
            let input = work.url.appendingPathComponent("\(index).bin")
            try incompressibleBytes(10_000 + index).write(to: input)
            #expect(try await trove(["cache", "put", "k\(index)", input.path], cacheDirectory: cache).status == 0)
        }
        let trim = try await trove(["cache", "trim", "--to", "25k", "--json"], cacheDirectory: cache)
        let trimmed = try jsonObject(trim)
        #expect(trimmed["removed"] as? Int == 3)
        #expect((trimmed["bytes"] as? Int ?? .max) <= 25 << 10)
        // LRU evicts the oldest: k3 and k4 remain.
        #expect(try await trove(["cache", "get", "k0"], cacheDirectory: cache).status == 1)
        #expect(try await trove(["cache", "get", "k4", "--json"], cacheDirectory: cache).status == 0)

        let young = try await trove(["cache", "clear", "--older-than", "7d", "--json"], cacheDirectory: cache)
        #expect(try jsonObject(young)["removed"] as? Int == 0)
        let all = try await trove(["cache", "clear", "--json"], cacheDirectory: cache)
        #expect(try jsonObject(all)["removed"] as? Int == 2)
        let stats = try jsonObject(try await trove(["cache", "stats", "--json"], cacheDirectory: cache))
        #expect(stats["entries"] as? Int == 0)

        let badAge = try await trove(["cache", "clear", "--older-than", "7x"], cacheDirectory: cache)
        #expect(badAge.status == 2)
        let badCompressor = try await trove(
            [
                "cache", "put", "k", work.url.appendingPathComponent("0.bin").path,
                "--compress", "lz4"
            ], cacheDirectory: cache)
        #expect(badCompressor.status == 2)
        #expect(badCompressor.stderr.contains("unknown compressor 'lz4'"))
    }
}
