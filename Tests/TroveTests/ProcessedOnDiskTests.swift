import Foundation
import Testing
import Trove
import TroveTestSupport

/// A request with transforms keeps its encoded result on disk by default, so a new process (here a new
/// pipeline on the same directory, with an empty memory tier) decodes the small result, not the original.
@Suite struct ProcessedOnDiskTests {
    typealias Decodes = [(minimum: PixelSize?, produced: PixelSize)]

    /// One run in a fresh pipeline on `directory`: the response and every decode it made.
    func run(
        in directory: URL, options: ImageRequest.Options = []
    ) async throws -> (ImageResponse, Decodes) {
        let log = ShrinkOnLoadPipelineTests.DecodeLog()
        var registry = PluginRegistry.standard
        try registry.register(decoder: ShrinkOnLoadPipelineTests.RecordingDecoder(log: log), replacing: true)
        let pipeline = try ImagePipeline(
            registry: registry, configuration: PipelineConfiguration(cacheDirectory: directory))
        let request = ImageRequest(
            url: Fixtures.image("coffee.png"),  // 600x400
            transforms: try registry.transformers(forSpec: "resize:w=120,h=120,mode=fit"), options: options)
        let response = try await pipeline.image(for: request)
        return (response, log.entries.withLock { $0 })
    }

    @Test func theSecondRunDecodesTheStoredThumbnailNotTheOriginal() async throws {
        try await withTemporaryDirectory { directory in
            let (first, firstDecodes) = try await run(in: directory)
            // The original, reduced on load to 300x200 (at least twice 120x80).
            #expect(firstDecodes.map(\.produced) == [PixelSize(width: 300, height: 200)])
            #expect(first.source != .disk)

            let (second, secondDecodes) = try await run(in: directory)
            #expect(second.source == .disk)
            #expect(secondDecodes.map(\.produced) == [PixelSize(width: 120, height: 80)])
            #expect(secondDecodes.allSatisfy { $0.minimum == nil })
            #expect(second.data == first.data)
            #expect(second.image.pixels == first.image.pixels)
        }
    }

    @Test func aRequestThatOptsOutTransformsAgainInEveryProcess() async throws {
        try await withTemporaryDirectory { directory in
            _ = try await run(in: directory, options: [.skipsProcessedDiskStore])
            let (second, decodes) = try await run(in: directory, options: [.skipsProcessedDiskStore])
            // The original again (from the disk, as bytes), never a stored result.
            #expect(decodes.map(\.produced) == [PixelSize(width: 300, height: 200)])
            #expect(second.image.width == 120 && second.image.height == 80)
            // Nor did the opted-out runs leave one for a later request to find.
            let (_, third) = try await run(in: directory)
            #expect(third.map(\.produced) == [PixelSize(width: 300, height: 200)])
        }
    }
}
