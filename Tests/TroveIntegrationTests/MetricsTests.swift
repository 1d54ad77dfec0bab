import FixtureServer
import Foundation
import MetricsTestKit
import Testing
import Trove

@Suite struct MetricsTests {
    @Test func hitsMissesFetchesAndBytesAreCounted() async throws {
        try await withServerAndCache { server, directory in
            let metrics = TestMetrics()
            let pipeline = try makePipeline(directory, metrics: metrics)
            let url = server.url("/images/tiles.png")
            _ = try await pipeline.image(for: url)  // memory miss, disk miss, fetch
            _ = try await pipeline.image(for: url)  // memory hit
            await pipeline.flush()
            _ = try await makePipeline(directory, metrics: metrics).image(for: url)  // memory miss, disk hit
            let size = Int64(try pngData("tiles.png").count)
            #expect(metrics.total("trove_cache_hits_total", [("tier", "memory")]) == 1)
            #expect(metrics.total("trove_cache_misses_total", [("tier", "memory")]) == 2)
            #expect(metrics.total("trove_cache_hits_total", [("tier", "disk")]) == 1)
            #expect(metrics.total("trove_cache_misses_total", [("tier", "disk")]) == 1)
            #expect(metrics.total("trove_fetches_total") == 1)
            #expect(metrics.total("trove_fetched_bytes_total") == size)
        }
    }
}
