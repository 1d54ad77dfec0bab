import Foundation
import Testing
import Trove
import TroveTestSupport

@Suite struct KeyCollisionTests {
    /// A custom key "a|grayscale" and the key "a" with the grayscale transform used to share the processed key
    /// "a|grayscale", so one could be served the other's bytes from disk.
    @Test func keysThatOnceJoinedToOneStringGiveTwoResultsAndTwoFiles() async throws {
        try await withTemporaryDirectory { directory in
            let registry = PluginRegistry.standard
            let pipeline = try ImagePipeline(
                registry: registry,
                configuration: PipelineConfiguration(cacheDirectory: directory))
            let plain = ImageRequest(url: Fixtures.image("badge.png"), customCacheKey: "a|grayscale")
            let gray = ImageRequest(
                url: Fixtures.image("chelsea.png"),
                transforms: try registry.transformers(forSpec: "grayscale"),
                customCacheKey: "a")
            let first = try await pipeline.image(for: plain)
            let second = try await pipeline.image(for: gray)
            #expect(first.image.width != second.image.width)
            await pipeline.diskCache?.waitForIndex()
            let disk = try #require(pipeline.diskCache)
            let plainKey = pipeline.cacheKey(for: plain).processed
            let grayKey = pipeline.cacheKey(for: gray).processed
            #expect(try await disk.data(forKey: plainKey) == first.data)
            #expect(try await disk.data(forKey: grayKey) == second.data)
            #expect(disk.fileURL(forKey: plainKey) != disk.fileURL(forKey: grayKey))

            // A fresh pipeline on the same directory gives each its own bytes back.
            let again = try ImagePipeline(
                registry: registry,
                configuration: PipelineConfiguration(cacheDirectory: directory))
            #expect(try await again.image(for: plain).data == first.data)
            #expect(try await again.image(for: gray).image == second.image)
        }
    }
}
