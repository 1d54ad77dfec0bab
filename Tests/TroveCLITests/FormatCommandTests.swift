import FixtureServer
import Foundation
import Testing
import TroveTestSupport

/// `--format` takes any format a registered encoder writes; `decode` reads any a decoder recognises.
@Suite struct FormatCommandTests {
    @Test func convertWritesWebPThatDecodeReadsBack() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
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
        defer { removeTemporaryDirectory(work) }
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
        defer { removeTemporaryDirectory(work) }
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
        defer { removeTemporaryDirectory(work) }
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

    /// `convert --speed` and `serve --avif-speed` set libavif's speed: the same result at speeds 10 and 4 are
    /// different files that both decode; a speed out of range is refused, naming the range.
    @Test func theSpeedIsAnOptionOfConvertAndASettingOfServe() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work)
        let source = Fixtures.images.appendingPathComponent("chelsea.png").path
        var converted: [Data] = []
        for speed in ["10", "4"] {
            let out = work.appendingPathComponent("s\(speed).avif")
            let result = try await cli.run([
                "convert", source, out.path, "--transform", "resize:w=120,h=120,mode=fit", "--speed", speed
            ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            converted.append(try Data(contentsOf: out))
        }
        #expect(converted[0] != converted[1])
        let refused = try await cli.run(["convert", source, work.appendingPathComponent("x.avif").path, "--speed", "11"]
        )
        #expect(refused.status == 2 && refused.stderr.contains("--speed must be 0...10, got 11"), "\(refused.stderr)")

        let origin = try FixtureServer(serving: Fixtures.images, under: "/")
        try await origin.start()
        var served: [Data] = []
        for speed in ["10", "4"] {
            let server = TroveServeProcess(
                port: try freeLoopbackPort(),
                arguments: [
                    "--cache-dir", work.appendingPathComponent("cache-\(speed)").path, "--allow-loopback-sources",
                    "--health-grace", "0", "--avif-speed", speed
                ])
            try await server.start()
            let answer = await get(
                port: server.port, path: "/insecure/rs:fit:120:120/plain/\(origin.url("/chelsea.png"))@avif",
                keepingBody: true)
            await server.stop()
            #expect(answer?.status == 200)
            served.append(Data(answer?.body ?? []))
        }
        await origin.stop()
        #expect(served.allSatisfy { $0.count > 100 && $0.dropFirst(4).starts(with: "ftypavif".utf8) })
        #expect(served[0] != served[1])
    }
}
