import FixtureServer
import Foundation
import Testing
import Trove

/// Retrying remembered failures from a prefetch, and forgetting a URL in every tier.
@Suite struct ForgetTests {
    @Test func aRetryingPrefetchFetchesAURLThat404edBeforeAndExistsNow() async throws {
        let badge = try pngData("badge.png")
        try await withServerAndCache([
            "/late.png": .sequence([.status(404), .file(badge, contentType: "image/png")])
        ]) { server, directory in
            let pipeline = try makePipeline(directory)
            let url = server.url("/late.png")
            let first = await Prefetcher(pipeline: pipeline).prefetch([url])
            #expect(first.failed == 1 && first.failures.first?.error.contains("HTTP 404") == true)
            // Remembered: a plain prefetch fails fast without asking the origin.
            let remembered = await Prefetcher(pipeline: pipeline).prefetch([url])
            #expect(remembered.failed == 1)
            #expect(remembered.failures.first?.error.contains("--retry-failed") == true)
            #expect(server.requestCount(for: "/late.png") == 1)

            let retried = await Prefetcher(pipeline: pipeline, retryFailed: true).prefetch([url])
            #expect(retried.fetched == 1 && retried.failed == 0)
            #expect(server.requestCount(for: "/late.png") == 2)
            #expect(try await pipeline.diskCache?.data(forKey: url.absoluteString) == badge)
        }
    }

    @Test func forgettingRemovesTheOriginalEveryVariantAndTheFailure() async throws {
        let badge = try pngData("badge.png")
        try await withServerAndCache([
            "/badge.png": .file(badge, contentType: "image/png"), "/other.png": .file(badge, contentType: "image/png"),
            "/missing.png": .status(404)
        ]) { server, directory in
            let pipeline = try makePipeline(directory)
            let url = server.url("/badge.png"), other = server.url("/other.png")
            _ = try await pipeline.image(for: url)
            for spec in ["resize:w=32,h=32", "grayscale"] {
                let transforms = try PluginRegistry.standard.transformers(forSpec: spec)
                _ = try await pipeline.image(for: ImageRequest(url: url, transforms: transforms))
            }
            _ = try await pipeline.image(for: other)
            let missing = server.url("/missing.png")
            _ = try? await pipeline.image(for: missing)
            await pipeline.flush()
            #expect(try await pipeline.diskCache?.keys().count == 4)

            let report = await pipeline.forget(url: url)
            #expect(report == ForgetReport(url: url.absoluteString, memory: 3, disk: 3))
            // Only the other URL's entry stays.
            #expect(try await pipeline.diskCache?.keys() == [other.absoluteString])
            #expect(pipeline.memoryCache.stats.count == 1)
            #expect(try await pipeline.image(for: url).source == .network)
            #expect(server.requestCount(for: "/badge.png") == 2)

            let forgotten = await pipeline.forget(url: missing)
            #expect(forgotten.failures == 1 && forgotten.disk == 0)
            await #expect(throws: TroveError.httpStatus(404, url: missing.absoluteString)) {
                _ = try await pipeline.image(for: missing)
            }
            #expect(server.requestCount(for: "/missing.png") == 2)
        }
    }
}

extension ForgetReport {
    init(url: String, memory: Int = 0, disk: Int = 0, shared: Int = 0, failures: Int = 0) {
        self.init(url: url)
        (self.memory, self.disk, self.shared, self.failures) = (memory, disk, shared, failures)
    }
}
