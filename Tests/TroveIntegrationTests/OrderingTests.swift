import FixtureServer
import Foundation
import MetricsTestKit
import Testing
import Trove
import TroveTestSupport

/// The scheduler's promises seen from the origin: each path has its own gate, so the test decides when each
/// download finishes and can read the exact order in which queued ones start.
@Suite struct OrderingTests {
    private static func gatedRoutes(_ names: [String]) throws -> ([String: FixtureServer.Route], [String: FixtureGate])
    {
        let data = try pngData("tiles.png")
        var routes: [String: FixtureServer.Route] = [:], gates: [String: FixtureGate] = [:]
        for name in names {
            let gate = FixtureGate()
            gates[name] = gate
            routes["/o/\(name)"] = .gated(data, contentType: "image/png", gate: gate)
        }
        return (routes, gates)
    }

    @Test func lifoWithTwoSlotsStartsTheNewestQueuedFirst() async throws {
        let names = ["a", "b", "c", "d", "e", "f"]
        let (routes, gates) = try Self.gatedRoutes(names)
        try await withServerAndCache(routes) { server, directory in
            let pipeline = try makePipeline(directory) {
                $0.scheduler = FetchSchedulerConfiguration(maxConcurrent: 2, order: .lifo)
            }
            var tasks: [ImageTask] = []
            for (index, name) in names.enumerated() {
                tasks.append(pipeline.task(for: ImageRequest(url: server.url("/o/\(name)"))))
                // Each request is running or queued before the next one is made, so the order is the test's.
                #expect(
                    await eventually {
                        pipeline.fetchScheduler.runningCount + pipeline.fetchScheduler.queuedCount == index + 1
                    })
                // The two that get slots at once travel to the server side by side; let each arrive before the
                // next is made, so the order the server sees is the order they were given slots.
                if index < 2 { #expect(await eventually { gates[name]!.arrivals >= 1 }) }
            }
            #expect(server.requests == ["/o/a", "/o/b"])
            // Finish one download at a time; each frees a slot for the newest queued request.
            for (finished, expectedNext) in [("a", "f"), ("b", "e"), ("f", "d"), ("e", "c")] {
                gates[finished]!.open()
                #expect(await eventually { gates[expectedNext]!.arrivals >= 1 })
            }
            #expect(server.requests == ["/o/a", "/o/b", "/o/f", "/o/e", "/o/d", "/o/c"])
            for gate in gates.values { gate.open() }
            for task in tasks { _ = try await task.response }
        }
    }

    @Test func priorityRaisedWhileQueuedIsServedEarlier() async throws {
        let names = ["a", "b", "c", "d"]
        let (routes, gates) = try Self.gatedRoutes(names)
        try await withServerAndCache(routes) { server, directory in
            let pipeline = try makePipeline(directory) {
                $0.scheduler = FetchSchedulerConfiguration(maxConcurrent: 1, order: .fifo)
            }
            var tasks: [ImageTask] = []
            for (index, name) in names.enumerated() {
                tasks.append(pipeline.task(for: ImageRequest(url: server.url("/o/\(name)"))))
                #expect(
                    await eventually {
                        pipeline.fetchScheduler.runningCount + pipeline.fetchScheduler.queuedCount == index + 1
                    })
            }
            tasks[3].setPriority(.veryHigh)  // d jumps ahead of b and c
            gates["a"]!.open()
            #expect(await eventually { gates["d"]!.arrivals >= 1 })
            gates["d"]!.open()
            #expect(await eventually { gates["b"]!.arrivals >= 1 })
            #expect(server.requests == ["/o/a", "/o/d", "/o/b"])
            for gate in gates.values { gate.open() }
            for task in tasks { _ = try await task.response }
            #expect(server.requests == ["/o/a", "/o/d", "/o/b", "/o/c"])
        }
    }

    /// Two results of one source (different transforms) are two jobs waiting on one fetch. A priority
    /// raised by the second, which joined the fetch, still moves the fetch up the queue.
    @Test func aRaisedPriorityReachesAFetchSharedByTwoResults() async throws {
        try await raisingPriorityOfAJoiner(sameResult: false)
    }

    /// Two callers of one result share its job, and the fetch beneath it: a priority raised by the one that
    /// joined moves the fetch up the queue.
    @Test func aRaisedPriorityReachesAFetchThroughASharedResult() async throws {
        try await raisingPriorityOfAJoiner(sameResult: true)
    }

    /// `a` runs in the only slot; `c`, then `b`, wait in FIFO order. A second request for `b` (for the same
    /// result, or another size) joins `b`'s work and raises its priority: `b` must start before `c`.
    private func raisingPriorityOfAJoiner(sameResult: Bool) async throws {
        let names = ["a", "b", "c"]
        let (routes, gates) = try Self.gatedRoutes(names)
        try await withServerAndCache(routes) { server, directory in
            let metrics = TestMetrics()
            let pipeline = try makePipeline(directory, metrics: metrics) {
                $0.scheduler = FetchSchedulerConfiguration(maxConcurrent: 1, order: .fifo)
            }
            var tasks: [ImageTask] = []
            for (index, name) in ["a", "c", "b"].enumerated() {
                tasks.append(
                    pipeline.task(
                        for: ImageRequest(
                            url: server.url("/o/\(name)"), transforms: [ResizeTransformer(width: 8, height: 8)])))
                #expect(
                    await eventually {
                        pipeline.fetchScheduler.runningCount + pipeline.fetchScheduler.queuedCount == index + 1
                    })
            }
            let second = ImageRequest(
                url: server.url("/o/b"),
                transforms: [ResizeTransformer(width: sameResult ? 8 : 4, height: sameResult ? 8 : 4)])
            let joined = pipeline.task(for: second)
            #expect(await eventually { metrics.total("trove_coalesced_joins_total") == 1 })
            joined.setPriority(.veryHigh)
            gates["a"]!.open()
            #expect(await eventually { gates["b"]!.arrivals >= 1 })
            #expect(server.requests == ["/o/a", "/o/b"])
            for gate in gates.values { gate.open() }
            for task in tasks + [joined] { _ = try await task.response }
            #expect(server.requests == ["/o/a", "/o/b", "/o/c"])
        }
    }
}
