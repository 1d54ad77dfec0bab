import FixtureServer
import Foundation
import MetricsTestKit
import Testing
import Trove
import TroveTestSupport

/// `cancel(url:)` and `cancelAll()` on both pipelines: they end exactly the requests they name, with
/// `TroveError.cancelled`, and leave the pipeline ready for new ones.
@Suite struct CancelByURLTests {
    @Test func cancellingAURLEndsItsCallersAndTasksAndLeavesTheOtherURL() async throws {
        let (gateA, gateB) = (FixtureGate(), FixtureGate())
        let tiles = try pngData("tiles.png")
        try await withServerAndCache([
            "/a.png": .gated(tiles, contentType: "image/png", gate: gateA),
            "/b.png": .gated(tiles, contentType: "image/png", gate: gateB)
        ]) { server, directory in
            let metrics = TestMetrics()
            let pipeline = try makePipeline(directory, metrics: metrics)
            let (a, b) = (server.url("/a.png"), server.url("/b.png"))
            let callers = (0..<3).map { _ in Task { try await pipeline.image(for: a) } }
            let task = pipeline.task(for: ImageRequest(url: a))
            let other = Task { try await pipeline.image(for: b) }
            #expect(await eventually { gateA.arrivals == 1 && gateB.arrivals == 1 })
            #expect(await eventually { metrics.total("trove_coalesced_joins_total") == 3 })

            #expect(pipeline.cancel(url: a) == 4)
            for caller in callers { await #expect(throws: TroveError.cancelled) { _ = try await caller.value } }
            await #expect(throws: TroveError.cancelled) { _ = try await task.response }
            gateB.open()
            let served = try await other.value
            #expect(served.image.width == 320 && served.image.height == 200)

            // Nothing is left to cancel, and a new request for the cancelled URL goes to the origin again.
            #expect(pipeline.cancel(url: a) == 0)
            gateA.open()
            #expect(try await pipeline.image(for: a).image.width == 320)
            #expect(server.requestCount(for: "/a.png") == 2)
        }
    }

    @Test func cancelByURLMatchesTheURLAsCacheKeysSpellIt() async throws {
        let gate = FixtureGate()
        try await withServerAndCache([
            "/c": .gated(Data("c".utf8), contentType: "text/plain", gate: gate)
        ]) { server, directory in
            let pipeline = try DataPipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            let url = server.url("/c")
            let request = Task { try await pipeline.data(for: url) }
            #expect(await eventually { gate.arrivals == 1 })
            // Another spelling of the same resource: upper-case scheme, a fragment.
            let spelled = try #require(URL(string: "HTTP" + url.absoluteString.dropFirst(4) + "#top"))
            #expect(pipeline.cancel(url: spelled) == 1)
            await #expect(throws: TroveError.cancelled) { _ = try await request.value }
            gate.open()
        }
    }

    @Test func cancelAllEndsEveryDataRequestAndTheNextOneWorks() async throws {
        let gate = FixtureGate()
        let blob = Data(repeating: 9, count: 50_000)
        try await withServerAndCache([
            "/x": .gated(blob, contentType: "application/octet-stream", gate: gate),
            "/y": .gated(blob, contentType: "application/octet-stream", gate: gate)
        ]) { server, directory in
            let pipeline = try DataPipeline(configuration: PipelineConfiguration(cacheDirectory: directory))
            let x = Task { try await pipeline.data(for: server.url("/x")) }
            let y = pipeline.task(for: DataRequest(url: server.url("/y")))
            #expect(await eventually { gate.arrivals == 2 })

            #expect(pipeline.cancelAll() == 2)
            await #expect(throws: TroveError.cancelled) { _ = try await x.value }
            await #expect(throws: TroveError.cancelled) { _ = try await y.response }
            #expect(pipeline.cancelAll() == 0)
            gate.open()
            #expect(try await pipeline.data(for: server.url("/x")).data == blob)
        }
    }
}
