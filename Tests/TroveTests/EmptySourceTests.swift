import Foundation
import Testing
import Trove
import TroveTestSupport

/// A source with no bytes at all is named as empty, not as a format whose first bytes are nothing, and is
/// not remembered as an image.
@Suite struct EmptySourceTests {
    @Test func anEmptyFileIsNamedEmpty() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("empty.png")
            try Data().write(to: file)
            let pipeline = try ImagePipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            let error = await #expect(throws: TroveError.self) { try await pipeline.image(for: file) }
            let expected = "\(file.absoluteString) is empty: there is no image to decode; check the source"
            #expect(error?.description == expected)
            #expect(pipeline.memoryCache.stats.count == 0)
            await pipeline.flush()
        }
    }
}
