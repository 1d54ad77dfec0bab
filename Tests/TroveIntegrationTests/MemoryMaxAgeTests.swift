import FixtureServer
import Foundation
import Testing
import Trove
import TroveTestSupport

/// `memory.defaultTTL`, the memory tier's own bound on results whose response set no expiry: such a result
/// leaves memory after it, while the disk (whose `disk.maxAge` is its own business) still serves it.
@Suite struct MemoryMaxAgeTests {
    @Test func aResultWithoutAnExpiryLeavesMemoryAfterMemoryMaxAgeAndTheDiskStillHasIt() async throws {
        let badge = try pngData("badge.png")
        try await withServerAndCache(["/r.png": .file(badge, contentType: "image/png")]) { server, dir in
            let url = server.url("/r.png")
            let pipeline = try makePipeline(dir) { $0.memory.defaultTTL = .milliseconds(300) }
            let first = try await pipeline.image(for: url)
            let key = first.cacheKey.processed
            #expect(first.source == .network && pipeline.memoryCache.value(forKey: key) != nil)
            // Observed, not slept on.
            #expect(await eventually(within: .seconds(10)) { pipeline.memoryCache.value(forKey: key) == nil })
            let second = try await pipeline.image(for: url)
            #expect(second.source == .disk && !second.isStale && second.data == badge)
            #expect(server.requestCount(for: "/r.png") == 1)
        }
    }

    @Test func aResultWithAnExpiryKeepsItsOwn() async throws {
        try await withServerAndCache(["/r.png": try HTTPFreshnessTests.resource(["Cache-Control": "max-age=3600"])]) {
            server, dir in
            let url = server.url("/r.png")
            let pipeline = try makePipeline(dir) { $0.memory.defaultTTL = .milliseconds(1) }
            let first = try await pipeline.image(for: url)
            let second = try await pipeline.image(for: url)
            #expect(second.source == .memory && second.image == first.image)
        }
    }
}
