import Foundation
import Testing
import Trove
import TroveTestSupport

/// `keepsOriginalsOnDisk = false` (`trove serve --no-source-cache`): results are kept on disk, fetched
/// originals are not, so each new result fetches its source again and nothing else changes.
@Suite struct OriginalsOffDiskTests {
    static func pipeline(_ directory: URL, fetcher: PlaceholderPipelineTests.CountingFileFetcher, keeps: Bool)
        throws -> ImagePipeline
    {
        var registry = PluginRegistry.standard
        try registry.register(fetcher: fetcher)
        var configuration = PipelineConfiguration(cacheDirectory: directory)
        configuration.keepsOriginalsOnDisk = keeps
        configuration.memory.countLimit = 0  // every answer from disk or the origin
        return try ImagePipeline(registry: registry, configuration: configuration)
    }

    static func request(width: Int) -> ImageRequest {
        ImageRequest(url: Fixtures.image("coffee.png"), transforms: [ResizeTransformer(width: width, height: nil)])
    }

    @Test func resultsAreKeptAndOriginalsAreNot() async throws {
        try await withTemporaryDirectory { directory in
            let fetcher = PlaceholderPipelineTests.CountingFileFetcher()
            let pipeline = try Self.pipeline(directory, fetcher: fetcher, keeps: false)
            let made = try await pipeline.image(for: Self.request(width: 40))
            #expect(made.source == .network && made.image.width == 40)
            await pipeline.flush()
            let key = pipeline.cacheKey(for: Self.request(width: 40))
            #expect(try await pipeline.diskCache?.entry(forKey: key.processed)?.data == made.data)
            #expect(try await pipeline.diskCache?.entry(forKey: key.raw) == nil)
            // The same result again comes from disk; another size fetches its source again.
            let again = try await pipeline.image(for: Self.request(width: 40))
            #expect(again.source == .disk && again.data == made.data)
            #expect(fetcher.count.withLock { $0 } == 1)
            let other = try await pipeline.image(for: Self.request(width: 30))
            #expect(other.source == .network && other.image.width == 30)
            #expect(fetcher.count.withLock { $0 } == 2)
        }
    }

    @Test func byDefaultTheOriginalIsKeptToo() async throws {
        try await withTemporaryDirectory { directory in
            let fetcher = PlaceholderPipelineTests.CountingFileFetcher()
            let pipeline = try Self.pipeline(directory, fetcher: fetcher, keeps: true)
            _ = try await pipeline.image(for: Self.request(width: 40))
            let other = try await pipeline.image(for: Self.request(width: 30))
            #expect(other.source == .disk && fetcher.count.withLock { $0 } == 1)
            await pipeline.flush()
            #expect(
                try await pipeline.diskCache?.entry(forKey: pipeline.cacheKey(for: Self.request(width: 30)).raw) != nil)
        }
    }

    @Test func theSettingReadsFromAConfigurationFile() throws {
        let json = Data(#"{"keepsOriginalsOnDisk": false}"#.utf8)
        let decoded = try JSONDecoder().decode(PipelineConfiguration.self, from: json)
        #expect(!decoded.keepsOriginalsOnDisk && PipelineConfiguration().keepsOriginalsOnDisk)
        let encoded = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(decoded)) as? [String: Any]
        #expect(encoded?["keepsOriginalsOnDisk"] as? Bool == false)
    }
}
