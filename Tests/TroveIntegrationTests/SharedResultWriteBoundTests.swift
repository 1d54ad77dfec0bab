import Foundation
import Testing
import Trove
import TroveTestSupport

/// Results go to the shared tier behind their answers; a tier that stops answering must not make them pile
/// up in memory: at most `BackgroundWrites.maxSharedResults` (64) wait on it, and the rest are not shared.
@Suite struct SharedResultWriteBoundTests {
    @Test func aStalledTierHoldsSixtyFourResultsAndTheRestAreNotShared() async throws {
        try await withTemporaryDirectory { directory in
            let tier = HoldableSharedTier()
            var registry = PluginRegistry.standard
            try registry.register(sharedTier: tier)
            var configuration = PipelineConfiguration(cacheDirectory: directory)
            configuration.sharedCache = URL(string: "holdable://tier")
            let pipeline = try ImagePipeline(registry: registry, configuration: configuration)
            tier.holdResultSets()
            let url = Fixtures.image("coffee.png")
            for width in 1...70 {
                let response = try await pipeline.image(
                    for: ImageRequest(url: url, transforms: [ResizeTransformer(width: width, height: nil)]))
                #expect(response.image.width == width)
            }
            // Every answer came while the tier held its writes: 64 wait, six results were not offered to it.
            #expect(await eventually { tier.heldWriteCount == 64 })
            try await Task.sleep(for: .milliseconds(100))
            #expect(tier.heldWriteCount == 64)
            tier.releaseWrites()
            await pipeline.flush()
            #expect(tier.storedCount == 1 + 64, "the source and the results it took")
        }
    }
}
