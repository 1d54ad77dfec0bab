import FixtureServer
import Foundation
import Testing
import Trove
import TroveTestSupport

/// `CachePolicy.memoryOnly` writes nothing to disk, failures included: they are remembered in memory.
@Suite struct MemoryOnlyTests {
    @Test func aMemoryOnlyFailureIsRememberedInMemoryAndNotOnDisk() async throws {
        try await withServerAndCache(["/404.png": .status(404)]) { server, directory in
            let pipeline = try makePipeline(directory)
            let missing = server.url("/404.png")
            let request = ImageRequest(url: missing, cachePolicy: .memoryOnly)
            await #expect(throws: TroveError.httpStatus(404, url: missing.absoluteString)) {
                _ = try await pipeline.image(for: request)
            }
            let remembered = await #expect(throws: TroveError.self) { _ = try await pipeline.image(for: request) }
            guard case .previouslyFailed(missing.absoluteString, "HTTP 404", _)? = remembered else {
                Issue.record("expected previouslyFailed, got \(String(describing: remembered))"); return
            }
            #expect(server.requestCount(for: "/404.png") == 1)
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("failed-urls").path))
            // Another process on the directory knows nothing of it.
            await #expect(throws: TroveError.httpStatus(404, url: missing.absoluteString)) {
                _ = try await makePipeline(directory).image(for: missing)
            }
            #expect(server.requestCount(for: "/404.png") == 2)
        }
    }

    @Test func bytesThatDoNotDecodeAreRememberedInMemoryAndNotOnDisk() async throws {
        // A PNG cut short: a decoder claims it by its signature, then fails on it.
        let png = try Data(contentsOf: Fixtures.image("chelsea.png"))
        let text = FixtureServer.Route.file(png.prefix(200), contentType: "image/png")
        try await withServerAndCache(["/text.png": text]) { server, directory in
            let pipeline = try makePipeline(directory)
            let url = server.url("/text.png")
            let request = ImageRequest(url: url, cachePolicy: .memoryOnly)
            let first = await #expect(throws: TroveError.self) { _ = try await pipeline.image(for: request) }
            guard case .decodingFailed? = first else {
                Issue.record("expected decodingFailed, got \(String(describing: first))"); return
            }
            let remembered = await #expect(throws: TroveError.self) { _ = try await pipeline.image(for: request) }
            guard case .previouslyFailed? = remembered else {
                Issue.record("expected previouslyFailed, got \(String(describing: remembered))"); return
            }
            #expect(server.requestCount(for: "/text.png") == 1)
            // Neither the bytes nor the failure reached the disk.
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("failed-urls").path))
            let files = FileManager.default.enumerator(atPath: directory.path)?.allObjects as? [String] ?? []
            #expect(!files.contains { $0.hasPrefix("entries/") && $0.split(separator: "/").count == 4 }, "\(files)")
        }
    }
}
