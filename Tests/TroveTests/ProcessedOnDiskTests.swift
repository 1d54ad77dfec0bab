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
        in directory: URL, options: ImageRequest.Options = [], maxAge: Duration? = nil,
        configure: (inout PipelineConfiguration) -> Void = { _ in }
    ) async throws -> (ImageResponse, Decodes) {
        let log = ShrinkOnLoadPipelineTests.DecodeLog()
        var registry = PluginRegistry.standard
        // Standing for a decoder that reduces by a filter (claimed gap 1), so a pipeline's gap of 1 reduces further.
        try registry.register(
            decoder: ShrinkOnLoadPipelineTests.RecordingDecoder(log: log, claimedGap: 1), replacing: true)
        var configuration = PipelineConfiguration(cacheDirectory: directory)
        configure(&configuration)
        let pipeline = try ImagePipeline(registry: registry, configuration: configuration)
        let request = ImageRequest(
            url: Fixtures.image("coffee.png"),  // 600x400
            transforms: try registry.transformers(forSpec: "resize:w=120,h=120,mode=fit"), options: options,
            maxAge: maxAge)
        let response = try await pipeline.image(for: request)
        // A process that ends flushes its queued disk writes, as the CLI does.
        await pipeline.flush()
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

    @Test func aPipelineWithOtherEncoderSettingsDoesNotReadAnotherPipelinesResult() async throws {
        try await withTemporaryDirectory { directory in
            let (first, _) = try await run(in: directory)
            // Level 0 stores PNG data uncompressed: other bytes for the same pixels, so its own result.
            let (second, decodes) = try await run(in: directory) { $0.encodingOptions.compressionLevel = 0 }
            // The original was decoded again (its bytes come from the disk), not the other pipeline's result.
            #expect(decodes.map(\.produced) == [PixelSize(width: 300, height: 200)])
            #expect(second.data != first.data && second.image.pixels == first.image.pixels)
            #expect(second.cacheKey.processed != first.cacheKey.processed)
            // Each result is kept under its own key, and each pipeline reads back its own.
            let (again, againDecodes) = try await run(in: directory) { $0.encodingOptions.compressionLevel = 0 }
            #expect(again.source == .disk && again.data == second.data)
            #expect(againDecodes.map(\.produced) == [PixelSize(width: 120, height: 80)])
        }
    }

    @Test func aPipelineWithAnotherReducingGapDoesNotReadAnotherPipelinesResult() async throws {
        try await withTemporaryDirectory { directory in
            let (first, _) = try await run(in: directory)
            let (second, decodes) = try await run(in: directory) { $0.shrinkOnLoadReducingGap = 1 }
            // The original was decoded again (its bytes come from the disk), not the other pipeline's result.
            // Gap 1 reduces the 600x400 original to 150x100 (at least 120x80), where gap 2 stopped at 300x200.
            #expect(decodes.map(\.produced) == [PixelSize(width: 150, height: 100)])
            #expect(second.cacheKey.processed != first.cacheKey.processed)
        }
    }

    @Test func aRequestsMaxAgeAppliesToTheStoredResult() async throws {
        try await withTemporaryDirectory { directory in
            _ = try await run(in: directory)
            // Older than a zero max age: neither the stored result nor the stored original may answer.
            let (second, decodes) = try await run(in: directory, maxAge: .zero)
            #expect(second.source == .network)
            #expect(decodes.map(\.produced) == [PixelSize(width: 300, height: 200)])
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
