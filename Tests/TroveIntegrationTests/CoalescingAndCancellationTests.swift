import FixtureServer
import Foundation
import MetricsTestKit
import Testing
import Trove
import TroveTestSupport

@Suite struct CoalescingAndCancellationTests {
    @Test func hundredRequestsForTenURLsReachTheOriginTenTimes() async throws {
        let gate = FixtureGate()
        let tiles = try pngData("tiles.png")
        var routes: [String: FixtureServer.Route] = [:]
        for i in 0..<10 { routes["/c/\(i).png"] = .gated(tiles, contentType: "image/png", gate: gate) }
        try await withServerAndCache(routes) { server, directory in
            let metrics = TestMetrics()
            let pipeline = try makePipeline(directory, metrics: metrics)
            try await withThrowingTaskGroup(of: ImageResponse.self) { group in
                for n in 0..<100 {
                    let url = server.url("/c/\(n % 10).png")
                    group.addTask { try await pipeline.image(for: url) }
                }
                // Hold the origin until all 100 callers wait: 6 downloads at the origin (the default slots),
                // 4 queued, and 90 callers joined to those 10.
                #expect(await eventually { gate.arrivals == 6 })
                #expect(await eventually { metrics.total("trove_coalesced_joins_total") == 90 })
                gate.open()
                var count = 0
                for try await response in group {
                    #expect(response.image.width == 320 && response.image.height == 200)
                    count += 1
                }
                #expect(count == 100)
            }
            #expect(server.requests.count == 10)
            for i in 0..<10 { #expect(server.requestCount(for: "/c/\(i).png") == 1) }
            #expect(metrics.total("trove_fetches_total") == 10)
        }
    }

    @Test func oneOfFiveWaitersCancellingLeavesFourServed() async throws {
        let gate = FixtureGate()
        try await withServerAndCache(["/g.png": .gated(try pngData("badge.png"), contentType: "image/png", gate: gate)])
        {
            server, directory in
            let metrics = TestMetrics()
            let pipeline = try makePipeline(directory, metrics: metrics)
            let tasks = (0..<5).map { _ in pipeline.task(for: ImageRequest(url: server.url("/g.png"))) }
            #expect(await eventually { gate.arrivals == 1 })
            #expect(await eventually { metrics.total("trove_coalesced_joins_total") == 4 })
            tasks[2].cancel()
            // Answered at once, while the origin still holds the download.
            await #expect(throws: TroveError.cancelled) { _ = try await tasks[2].response }
            #expect(gate.waiting == 1)
            gate.open()
            for (index, task) in tasks.enumerated() where index != 2 {
                #expect(try await task.response.image.width == 256)
            }
            #expect(server.requests.count == 1)
        }
    }

    @Test func allFiveCancellingCancelsTheDownload() async throws {
        let gate = FixtureGate()
        try await withServerAndCache(["/g.png": .gated(try pngData("badge.png"), contentType: "image/png", gate: gate)])
        {
            server, directory in
            let metrics = TestMetrics()
            let pipeline = try makePipeline(directory, metrics: metrics)
            let tasks = (0..<5).map { _ in pipeline.task(for: ImageRequest(url: server.url("/g.png"))) }
            #expect(await eventually { gate.arrivals == 1 })
            #expect(await eventually { metrics.total("trove_coalesced_joins_total") == 4 })
            #expect(pipeline.fetchScheduler.runningCount == 1)
            for task in tasks { task.cancel() }
            for task in tasks { await #expect(throws: TroveError.cancelled) { _ = try await task.response } }
            // The shared download itself stops: its scheduler slot frees while the origin still holds the response.
            #expect(await eventually { pipeline.fetchScheduler.runningCount == 0 })
            gate.open()
            try await Task.sleep(for: .milliseconds(100))
            #expect(await pipeline.diskCache?.stats().entries == 0)
            // Nothing was cached, so asking again goes back to the origin.
            _ = try await pipeline.image(for: server.url("/g.png"))
            #expect(server.requests.count == 2)
        }
    }
}
