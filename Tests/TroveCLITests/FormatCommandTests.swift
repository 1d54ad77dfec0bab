import FixtureServer
import Foundation
import Testing
import TroveTestSupport

/// `--format` takes any format a registered encoder writes; `decode` reads any a decoder recognises.
@Suite struct FormatCommandTests {
    @Test func convertWritesWebPThatDecodeReadsBack() async throws {
        let work = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let cli = CLIRunner(cacheDirectory: work)
        let source = Fixtures.images.appendingPathComponent("chelsea.png").path
        let lossy = work.appendingPathComponent("c.webp").path, lossless = work.appendingPathComponent("l.webp").path
        let converted = try await cli.run([
            "convert", source, lossy, "--transform", "resize:w=100,h=100,mode=fit",
            "--quality", "80", "--json"
        ])
        let exact = try await cli.run(["convert", source, lossless, "--format", "webp", "--lossless", "--json"])
        let decoded = try await cli.run(["decode", lossy, lossless, "--json"])
        #expect(converted.status == 0, "stderr: \(converted.stderr)")
        #expect(converted.jsonLines.first?["format"] as? String == "webp")
        #expect(exact.status == 0 && decoded.status == 0, "stderr: \(exact.stderr) \(decoded.stderr)")
        #expect(decoded.jsonLines.map { $0["format"] as? String } == ["webp", "webp"])
        #expect(decoded.jsonLines.first?["width"] as? Int == 100)
        let lossyBytes = try Data(contentsOf: URL(fileURLWithPath: lossy))
        #expect(lossyBytes.starts(with: "RIFF".utf8) && lossyBytes.dropFirst(8).starts(with: "WEBP".utf8))
    }

    @Test func getEncodesTheResultInTheAskedFormat() async throws {
        let server = try FixtureServer(serving: Fixtures.images, under: "/")
        try await server.start()
        let work = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("t.webp")
        let result = try await CLIRunner(cacheDirectory: work).run([
            "get", server.url("/tiles.png").absoluteString, "--transform", "grayscale", "--format", "webp",
            "-o", out.path, "--json"
        ])
        await server.stop()
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.jsonLines.first?["format"] as? String == "webp")
        #expect(try Data(contentsOf: out).dropFirst(8).starts(with: "WEBP".utf8))
    }

    @Test func aFormatNoEncoderWritesIsAUsageErrorListingTheOnesThatExist() async throws {
        let work = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let source = Fixtures.images.appendingPathComponent("badge.png").path
        let result = try await CLIRunner(cacheDirectory: work).run(
            ["convert", source, work.appendingPathComponent("x.bmp").path, "--format", "bmp"])
        #expect(result.status == 2)
        #expect(
            result.stderr.contains(
                "no encoder writes format 'bmp'; formats with an encoder: avif, heic, jpeg, jxl, png, webp"),
            "stderr: \(result.stderr)")
    }
}

@Suite struct AVIFCommandTests {
    @Test func convertWritesAVIFThatDecodeReadsBack() async throws {
        let work = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let cli = CLIRunner(cacheDirectory: work)
        let out = work.appendingPathComponent("c.avif").path
        let converted = try await cli.run([
            "convert", Fixtures.images.appendingPathComponent("chelsea.png").path, out,
            "--transform", "resize:w=120,h=120,mode=fit", "--json"
        ])
        let decoded = try await cli.run(["decode", out, "--json"])
        #expect(converted.status == 0, "stderr: \(converted.stderr)")
        #expect(converted.jsonLines.first?["format"] as? String == "avif")
        #expect(decoded.jsonLines.first?["format"] as? String == "avif")
        #expect(decoded.jsonLines.first?["width"] as? Int == 120)
    }
}
