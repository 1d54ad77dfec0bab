import Foundation
import Testing
import TroveTestSupport

@Suite struct PluginsCommandTests {
    @Test func jsonListsEveryKindWithItsNames() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let result = try await CLIRunner(cacheDirectory: work).run(["plugins", "--json"])
        #expect(result.status == 0)
        let listing = try #require(result.jsonLines.first)
        let kinds = ["fetchers", "decoders", "encoders", "hashers", "evictionPolicies", "transformers", "compressors"]
        #expect(
            Set(listing.keys) == Set(kinds + ["sharedTiers", "colorConverters", "formats", "schemes", "installed"]))
        #expect((listing["sharedTiers"] as? [String]) == ["redis", "s3"])
        // TroveColor is installed by default: decoded images are brought to sRGB.
        #expect((listing["colorConverters"] as? [String]) == ["lcms"])
        for kind in kinds { #expect((listing[kind] as? [String])?.isEmpty == false, "\(kind) is empty") }
        #expect((listing["fetchers"] as? [String]).map { $0.contains("http") && $0.contains("s3") } == true)
        #expect((listing["decoders"] as? [String])?.contains("png") == true)
        #expect((listing["hashers"] as? [String])?.contains("sha256") == true)
        #expect((listing["compressors"] as? [String])?.contains("zlib") == true)
        // Which plugin serves each format and scheme.
        let formats = try #require(listing["formats"] as? [String: [String: String]])
        #expect(formats["png"] == ["decoder": "png", "encoder": "png"])
        #expect(formats["jpeg"] == ["decoder": "jpeg", "encoder": "jpeg"])
        #expect(formats["gif"] == ["decoder": "gif"])
        let schemes = try #require(listing["schemes"] as? [String: [String: String]])
        #expect(schemes["https"] == ["fetcher": "http"] && schemes["file"] == ["fetcher": "file"])
        // TroveS3 reads s3://bucket/key sources and keeps the s3:// shared tier.
        #expect(schemes["s3"] == ["fetcher": "s3", "sharedTier": "s3"])
        let installed = try #require(listing["installed"] as? [[String: String]])
        #expect(installed.contains { $0["name"] == "jpeg" })
        #expect(installed.contains { $0["name"] == "color" })
    }
}
