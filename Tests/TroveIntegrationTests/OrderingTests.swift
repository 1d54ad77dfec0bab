import FixtureServer
import Foundation
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
}
