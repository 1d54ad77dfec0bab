import Foundation
import Testing
import TroveTestSupport

@Suite struct HEICCommandTests {
    /// A 12 MP phone-sized HEIC (512x512 grid tiles) becomes a 320 px thumbnail through `trove convert`.
    @Test func convertMakesAThumbnailOfA12MegapixelHEIC() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let cli = CLIRunner(cacheDirectory: work)
        let source = Fixtures.url("heic/large.heic").path  // 4032 x 3024
        let out = work.appendingPathComponent("thumbnail.png").path
        let rgba = work.appendingPathComponent("thumbnail.rgba").path
        let info = try await cli.run(["decode", source, "--json"])
        #expect(info.jsonLines.first?["format"] as? String == "heic", "stderr: \(info.stderr)")
        #expect(info.jsonLines.first?["width"] as? Int == 4032 && info.jsonLines.first?["height"] as? Int == 3024)
        // Nearest-neighbour: the debug build's Lanczos over 12 MP takes 17 s of CPU, and the filter is not
        // what this tests.
        let converted = try await cli.run([
            "convert", source, out, "--transform", "resize:w=320,h=320,filter=nearest", "--json"
        ])
        #expect(converted.status == 0, "stderr: \(converted.stderr)")
        let decoded = try await cli.run(["decode", out, "--json", "--rgba", rgba])
        #expect(decoded.jsonLines.first?["format"] as? String == "png")
        #expect(decoded.jsonLines.first?["width"] as? Int == 320 && decoded.jsonLines.first?["height"] as? Int == 240)
        // The picture scaled by 320/4032: the red disc centred at (1300, 1200) and the blue block around
        // (3000, 1950) land at (103, 95) and (238, 155).
        let pixels = [UInt8](try Data(contentsOf: URL(fileURLWithPath: rgba)))
        try #require(pixels.count == 320 * 240 * 4)
        func pixel(_ x: Int, _ y: Int) -> [Int] { (0..<3).map { Int(pixels[(y * 320 + x) * 4 + $0]) } }
        #expect(pixel(103, 95)[0] > 200 && pixel(103, 95)[2] < 80, "\(pixel(103, 95))")
        #expect(pixel(238, 155)[2] > 190 && pixel(238, 155)[0] < 60, "\(pixel(238, 155))")
    }

    /// The plugin is installed, and on Debian's libheif (x265 linked) HEIC is written as well as read.
    @Test func pluginsListsHEICBothWays() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let result = try await CLIRunner(cacheDirectory: work).run(["plugins", "--json"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let listing = try #require(result.jsonLines.first)
        let formats = try #require(listing["formats"] as? [String: [String: String]])
        #expect(formats["heic"] == ["decoder": "heic", "encoder": "heic"])
        let installed = try #require(listing["installed"] as? [[String: String]])
        #expect(installed.contains { $0["name"] == "heif" })
        let text = try await CLIRunner(cacheDirectory: work).run(["plugins"])
        #expect(text.stdout.contains("format heic: decoder heic, encoder heic"))
        #expect(!text.stdout.contains("heic decodes only"))
    }
}
