import Foundation
import Testing
import TroveTestSupport

/// `--config FILE` on the commands that build a pipeline or open the cache: its settings apply, flags
/// override it, and a bad file is bad usage that names the problem.
@Suite struct ConfigFileCommandTests {
    @Test func theLimitsOfAConfigFileAreTheOnesCacheStatsReports() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let config = work.appendingPathComponent("trove.json")
        try Data(#"{"disk": {"byteLimit": 2097152}, "hasher": "md5", "compressor": "zlib"}"#.utf8).write(to: config)
        let input = work.appendingPathComponent("text.txt")
        try Data(String(repeating: "configured bytes\n", count: 400).utf8).write(to: input)
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))

        let put = try await cli.run(["cache", "put", "doc", input.path, "--config", config.path, "--json"])
        #expect(put.status == 0, "\(put.stderr)")
        #expect(put.jsonLines.first?["compressed"] as? Bool == true)
        let stats = try await cli.run(["cache", "stats", "--config", config.path, "--json"])
        #expect(stats.jsonLines.first?["limitBytes"] as? Int == 2 << 20)
        #expect(stats.jsonLines.first?["entries"] as? Int == 1)
        // The file's md5 named the entries; a flag overrides the file, and the directory re-files them.
        let manifest = work.appendingPathComponent("cache/manifest.json")
        #expect(try String(contentsOf: manifest, encoding: .utf8).contains(#""hasher":"md5""#))
        let other = try await cli.run(["cache", "get", "doc", "--config", config.path, "--hasher", "sha256"])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(try String(contentsOf: manifest, encoding: .utf8).contains(#""hasher":"sha256""#))
        // Without the file, the default limit.
        let plain = try await cli.run(["cache", "stats", "--json"])
        #expect(plain.jsonLines.first?["limitBytes"] as? Int == 500 << 20)
        // $TROVE_CACHE_DIR (which the runner sets) wins over the file's directory, as flags and the
        // environment win over serve's file.
        let elsewhere = work.appendingPathComponent("elsewhere")
        let moved = work.appendingPathComponent("moved.json")
        try Data(#"{"cacheDirectory": "\#(elsewhere.path)", "hasher": "md5"}"#.utf8).write(to: moved)
        let fromEnvironment = try await cli.run(["cache", "stats", "--config", moved.path, "--json"])
        #expect(fromEnvironment.jsonLines.first?["entries"] as? Int == 1)
        #expect(!FileManager.default.fileExists(atPath: elsewhere.path))
    }

    @Test func decodeAndConvertTakeTheirLimitsAndEncodingFromTheFile() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let small = work.appendingPathComponent("small.json")
        try Data(#"{"decodingLimits": {"maxPixels": 1000}}"#.utf8).write(to: small)
        let image = Fixtures.image("chelsea.png").path  // 451x300
        let cli = CLIRunner(cacheDirectory: work)
        let decode = try await cli.run(["decode", image, "--config", small.path])
        #expect(decode.status == 1)
        #expect(decode.stderr.contains("451x300") && decode.stderr.contains("1000"), "\(decode.stderr)")
        let out = work.appendingPathComponent("out.png").path
        let convert = try await cli.run(["convert", image, out, "--config", small.path])
        #expect(convert.status == 1)
        // Without the file, the same image decodes.
        #expect(try await cli.run(["convert", image, out]).status == 0)
    }

    @Test func theFilesSharedCacheStandsWithoutAFlagOrTheEnvironment() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let config = work.appendingPathComponent("fleet.json")
        // A scheme no shared tier serves: the pipeline refuses it by name, which shows the file's value is used.
        try Data(#"{"sharedCache": "nosuch://127.0.0.1:1/"}"#.utf8).write(to: config)
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))
        let image = Fixtures.image("chelsea.png").absoluteString
        let result = try await cli.run(["get", image, "--config", config.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("no shared cache tier serves 'nosuch://' URLs"), "\(result.stderr)")
        // Without the file the same get succeeds.
        #expect(try await cli.run(["get", image]).status == 0)
    }

    @Test func aBadConfigFileIsBadUsageNamingTheField() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let config = work.appendingPathComponent("bad.json")
        try Data(#"{"diskBytelimit": 1}"#.utf8).write(to: config)
        let result = try await CLIRunner(cacheDirectory: work).run(["cache", "stats", "--config", config.path])
        #expect(result.status == 2)
        #expect(result.stderr.contains("Error: --config \(config.path): unknown field 'diskBytelimit'; known: "))
        #expect(result.stdout.isEmpty)
    }
}
