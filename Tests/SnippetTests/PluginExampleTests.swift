// swift-format-ignore-file
// (the README and the DocC articles quote this file's regions word for word, spacing included)
import Foundation
import Testing
import Trove
import TroveCodec
import TroveTestSupport

// The README's "register a plugin" example (ReadmeSnippetTests checks the README's copy word for word).
// snippet plugin-types
/// Inverts red, green and blue; keeps alpha.
struct Invert: ImageTransformer {
    let identifier = "invert"
    func transform(_ image: Image) throws -> Image {
        var out = image.convertedToRGBA8()
        for i in stride(from: 0, to: out.pixels.count, by: 4) {
            for c in i..<i + 3 { out.pixels[c] = 255 - out.pixels[c] }
        }
        return out
    }
}

/// djb2 over the key's bytes, as 16 hex digits.
struct DJB2Hasher: KeyHasher {
    let name = "djb2"
    func hash(_ key: String) -> String {
        let h = key.utf8.reduce(UInt64(5381)) { $0 &* 33 &+ UInt64($1) }
        return String(repeating: "0", count: 16 - String(h, radix: 16).count) + String(h, radix: 16)
    }
}

struct ExamplePlugin: TrovePlugin {
    let name = "example"
    let version = "1.0.0"
    func register(into registry: inout PluginRegistry) throws {
        try registry.register(transformer: "invert") { _ in Invert() }
        try registry.register(hasher: DJB2Hasher())
    }
}
// end snippet plugin-types

@Suite struct PluginExampleTests {
    /// A pipeline composed from a registry holding a plugin defined here uses both of its parts.
    @Test func customTransformerAndHasherAreUsed() async throws {
        try await withTemporaryDirectory { directory in
            var registry = PluginRegistry.standard
            try registry.install(ExamplePlugin())
            var configuration = PipelineConfiguration(cacheDirectory: directory)
            configuration.hasher = "djb2"
            let pipeline = try ImagePipeline(registry: registry, configuration: configuration)

            let url = Fixtures.image("badge.png")
            let request = ImageRequest(url: url, transforms: try registry.transformers(forSpec: "invert"))
            let response = try await pipeline.image(for: request)

            // The pixels changed exactly as the transformer says.
            let original = try PNGDecoder().decode(try Data(contentsOf: url), limits: .default)
            #expect(response.image.width == original.width && response.image.height == original.height)
            for i in stride(from: 0, to: original.pixels.count, by: 4) {
                let out = Array(response.image.pixels[i..<i + 4]), src = Array(original.pixels[i..<i + 4])
                #expect(out == [255 - src[0], 255 - src[1], 255 - src[2], src[3]])
                if out != [255 - src[0], 255 - src[1], 255 - src[2], src[3]] { break }
            }
            // The result is PNG-encoded with the same pixels.
            #expect(try PNGDecoder().decode(response.data, limits: .default).pixels == response.image.pixels)

            // The raw entry's file is named by the plugin's hasher, in the documented layout; so is the
            // processed result's, which a request with transforms keeps on disk too.
            let hash = DJB2Hasher().hash(CacheKey(request).raw)
            let processedHash = DJB2Hasher().hash(CacheKey(request).processed)
            let expected = directory.appendingPathComponent("entries")
                .appendingPathComponent(String(hash.prefix(2)))
                .appendingPathComponent(String(hash.dropFirst(2).prefix(2)))
                .appendingPathComponent(hash)
            #expect(FileManager.default.fileExists(atPath: expected.path))
            #expect(
                Set(filesUnder(directory.appendingPathComponent("entries")).map(\.lastPathComponent))
                    == [hash, processedHash])
        }
    }
}
