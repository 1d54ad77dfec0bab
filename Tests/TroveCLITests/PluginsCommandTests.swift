import Foundation
import Testing

@Suite struct PluginsCommandTests {
    @Test func jsonListsEveryKindWithItsNames() async throws {
        let work = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let result = try await CLIRunner(cacheDirectory: work).run(["plugins", "--json"])
        #expect(result.status == 0)
        let listing = try #require(result.jsonLines.first)
        let kinds = ["fetchers", "decoders", "encoders", "hashers", "evictionPolicies", "transformers", "compressors"]
        #expect(Set(listing.keys) == Set(kinds))
        for kind in kinds { #expect((listing[kind] as? [String])?.isEmpty == false, "\(kind) is empty") }
        #expect((listing["fetchers"] as? [String])?.contains("http") == true)
        #expect((listing["decoders"] as? [String])?.contains("png") == true)
        #expect((listing["hashers"] as? [String])?.contains("sha256") == true)
        #expect((listing["compressors"] as? [String])?.contains("zlib") == true)
    }
}
