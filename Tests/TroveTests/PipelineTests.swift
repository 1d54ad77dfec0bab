import Foundation
import Testing
import Trove
import TroveCodec
import TroveTestSupport

@Suite struct PipelineTests {
    @Test func unknownPluginNameFailsAtBuildListingKnownNames() throws {
        // Memory only: a name that resolves must not open a cache in the user's home.
        var configuration = PipelineConfiguration.memoryOnly
        configuration.hasher = "sha3"
        #expect(throws: TroveError.unknownPlugin(kind: .hasher, name: "sha3", known: ["md5", "sha256"])) {
            _ = try ImagePipeline(configuration: configuration)
        }
        configuration.hasher = "sha256"
        configuration.memoryEviction = "clock"
        #expect(
            throws: TroveError.unknownPlugin(
                kind: .evictionPolicy, name: "clock", known: ["fifo", "lfu", "lru", "s3fifo", "sieve", "wtinylfu"])
        ) {
            _ = try ImagePipeline(configuration: configuration)
        }
    }

    @Test func aCompressionLevelZlibRefusesFailsAtBuildNamingIt() async throws {
        try await withTemporaryDirectory { directory in
            var configuration = PipelineConfiguration(cacheDirectory: directory)
            configuration.compressor = "zlib"
            configuration.disk.compressionLevel = 12
            #expect(
                throws: TroveError.invalidConfiguration(
                    "compression level 12 does not work with the 'zlib' compressor (zlib compression level 12 is out "
                        + "of range 0...9); give a level it accepts, or none for its default")
            ) {
                _ = try ImagePipeline(configuration: configuration)
            }
            configuration.disk.compressionLevel = 9
            _ = try ImagePipeline(configuration: configuration)
        }
    }

    @Test func secondRequestIsAMemoryHitWithOriginalBytes() async throws {
        try await withTemporaryDirectory { directory in
            let pipeline = try ImagePipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            let url = Fixtures.image("tiles.png")
            let first = try await pipeline.image(for: url)
            let second = try await pipeline.image(for: url)
            #expect(first.source == .network)
            #expect(second.source == .memory)
            #expect(first.data == (try Data(contentsOf: url)))  // no transform: the original bytes
            #expect(second.image == first.image)
            #expect(first.image.width == 320 && first.image.height == 200)
        }
    }

    @Test func resizedResultIsEncodedAtTheNewSize() async throws {
        try await withTemporaryDirectory { directory in
            let registry = PluginRegistry.standard
            let pipeline = try ImagePipeline(
                registry: registry, configuration: PipelineConfiguration(cacheDirectory: directory))
            let transforms = try registry.transformers(forSpec: "resize:w=96,h=64,mode=stretch,filter=bilinear")
            let response = try await pipeline.image(
                for: ImageRequest(url: Fixtures.image("chelsea.png"), transforms: transforms))
            #expect(response.image.width == 96 && response.image.height == 64)
            let decoded = try PNGDecoder().decode(response.data, limits: .default)
            #expect(decoded.width == 96 && decoded.height == 64)
            #expect(decoded.pixels == response.image.pixels)
        }
    }

    @Test func cacheOnlyNeverLoadsAndNamesTheKey() async throws {
        try await withTemporaryDirectory { directory in
            let pipeline = try ImagePipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            let request = ImageRequest(url: Fixtures.image("badge.png"), cachePolicy: .cacheOnly)
            await #expect(throws: TroveError.notCached(key: pipeline.cacheKey(for: request).raw)) {
                _ = try await pipeline.image(for: request)
            }
            // Once loaded, cacheOnly is served from the cache.
            _ = try await pipeline.image(for: ImageRequest(url: Fixtures.image("badge.png")))
            await pipeline.flush()
            let fresh = try ImagePipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            #expect(try await fresh.image(for: request).source == .disk)
        }
    }

    @Test func memoryOnlyWritesNothingToDisk() async throws {
        try await withTemporaryDirectory { directory in
            let pipeline = try ImagePipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            let response = try await pipeline.image(
                for: ImageRequest(url: Fixtures.image("badge.png"), cachePolicy: .memoryOnly))
            #expect(response.source == .network)
            #expect(filesUnder(directory.appendingPathComponent("entries")).isEmpty)
            #expect(try await pipeline.image(for: Fixtures.image("badge.png")).source == .memory)
        }
    }

    @Test func bytesThatAreNotAnImageFailAndCacheNothing() async throws {
        try await withTemporaryDirectory { directory in
            let pipeline = try ImagePipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            let url = URL(
                string: "data:application/json;base64," + Data("{\"not\": \"an image\"}".utf8).base64EncodedString())!
            let error = await #expect(throws: TroveError.self) { _ = try await pipeline.image(for: url) }
            #expect(error == .unsupportedFormat(url: url.absoluteString, firstBytes: Array("{\"not\": ".utf8)))
            #expect(error?.description.contains("7b 22 6e 6f 74 22 3a 20") == true)
            #expect(filesUnder(directory.appendingPathComponent("entries")).isEmpty)
            #expect(pipeline.memoryCache.stats.count == 0)
        }
    }

    @Test func reloadIgnoresBothCaches() async throws {
        try await withTemporaryDirectory { directory in
            let pipeline = try ImagePipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            let url = Fixtures.image("tiles.png")
            _ = try await pipeline.image(for: url)
            let reloaded = try await pipeline.image(for: ImageRequest(url: url, cachePolicy: .reloadIgnoringCache))
            #expect(reloaded.source == .network)
        }
    }
}
