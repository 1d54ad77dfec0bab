import FixtureServer
import Foundation
import Synchronization
import Testing
import TroveCore
import TroveFetcher

/// FetchScheduler: limits, order, priorities and cancellation, observed both from inside the work and by a
/// real server on 127.0.0.1 (whose request log is the order the origin saw).
@Suite(.timeLimit(.minutes(1)))
struct FetchSchedulerTests {
    /// Queues `labels` one at a time behind a held slot (max concurrency 1) and returns the order they ran in.
    private func runOrder(order: QueueOrder, _ labels: [(String, RequestPriority)]) async throws -> [String] {
        let scheduler = FetchScheduler(configuration: .init(maxConcurrent: 1, order: order))
        let latch = Latch()
        let ran = Recorder<String>()
        let holder = Task { try await scheduler.run(host: "h", ticket: SchedulerTicket()) { await latch.wait() } }
        try await waitUntil("the holder runs") { scheduler.runningCount == 1 }
        var tasks: [Task<Void, any Error>] = []
        for (index, (label, priority)) in labels.enumerated() {
            tasks.append(
                Task {
                    try await scheduler.run(host: "h", ticket: SchedulerTicket(priority: priority)) {
                        ran.append(label)
                    }
                })
            try await waitUntil("\(label) is queued") { scheduler.queuedCount == index + 1 }
        }
        latch.open()
        try await holder.value
        for task in tasks { try await task.value }
        #expect(scheduler.runningCount == 0 && scheduler.queuedCount == 0)
        return ran.all
    }

    @Test func higherPriorityFirstThenFIFO() async throws {
        let order = try await runOrder(
            order: .fifo,
            [
                ("a", .normal), ("b", .low), ("c", .high), ("d", .normal),
                ("e", .veryHigh), ("f", .veryLow)
            ])
        #expect(order == ["e", "c", "a", "d", "b", "f"])
    }

    @Test func higherPriorityFirstThenLIFO() async throws {
        let order = try await runOrder(
            order: .lifo,
            [
                ("a", .normal), ("b", .low), ("c", .high), ("d", .normal),
                ("e", .normal), ("f", .veryLow)
            ])
        #expect(order == ["c", "e", "d", "a", "b", "f"])
    }

    /// Max concurrency 2 and LIFO: one slot stays held, the other serves the queue; the server must see the
    /// queued requests newest first, and never more than 2 at once.
    @Test func lifoWithTwoSlotsReachesTheServerNewestFirst() async throws {
        let first = FixtureGate()
        let second = FixtureGate()
        var routes: [String: FixtureServer.Route] = [
            "/held-1": .gated(Data("1".utf8), contentType: "text/plain", gate: first),
            "/held-2": .gated(Data("2".utf8), contentType: "text/plain", gate: second)
        ]
        for index in 1...5 { routes["/r\(index)"] = .file(Data("r\(index)".utf8), contentType: "text/plain") }
        try await withServer(routes) { server in
            let scheduler = FetchScheduler(configuration: .init(maxConcurrent: 2, order: .lifo))
            let host = FetchScheduler.hostKey(for: server.url("/"))
            func fetch(_ path: String) -> Task<Data, any Error> {
                Task {
                    try await scheduler.run(host: host, ticket: SchedulerTicket()) {
                        try await fetchData(server.url(path))
                    }
                }
            }
            let held1 = fetch("/held-1")
            await first.waitForArrivals(1)
            let held2 = fetch("/held-2")
            await second.waitForArrivals(1)
            var queued: [Task<Data, any Error>] = []
            for index in 1...5 {
                queued.append(fetch("/r\(index)"))
                try await waitUntil("r\(index) is queued") { scheduler.queuedCount == index }
            }
            #expect(server.requests.count == 2)  // nothing queued reached the origin

            second.open()
            for (index, task) in queued.enumerated() { #expect(try await task.value == Data("r\(index + 1)".utf8)) }
            #expect(try await held2.value == Data("2".utf8))
            #expect(Array(server.requests.dropFirst(2)) == ["/r5", "/r4", "/r3", "/r2", "/r1"])
            first.open()
            #expect(try await held1.value == Data("1".utf8))
            #expect(server.peakInFlight == 2)
        }
    }

    @Test func priorityRaisedWhileQueuedIsServedEarlier() async throws {
        let gate = FixtureGate()
        var routes: [String: FixtureServer.Route] = ["/held": .gated(Data(), contentType: "text/plain", gate: gate)]
        for name in ["a", "b", "c"] { routes["/\(name)"] = .file(Data(name.utf8), contentType: "text/plain") }
        try await withServer(routes) { server in
            let scheduler = FetchScheduler(configuration: .init(maxConcurrent: 1))
            let host = FetchScheduler.hostKey(for: server.url("/"))
            let holder = Task { try await scheduler.run(host: host) { try await fetchData(server.url("/held")) } }
            await gate.waitForArrivals(1)
            var tickets: [SchedulerTicket] = []
            var tasks: [Task<Data, any Error>] = []
            for (index, name) in ["a", "b", "c"].enumerated() {
                let ticket = SchedulerTicket(priority: .low)
                tickets.append(ticket)
                tasks.append(
                    Task {
                        try await scheduler.run(host: host, ticket: ticket) {
                            try await fetchData(server.url("/\(name)"))
                        }
                    })
                try await waitUntil("\(name) is queued") { scheduler.queuedCount == index + 1 }
            }
            tickets[2].setPriority(.veryHigh)
            #expect(tickets[2].priority == .veryHigh)
            gate.open()
            _ = try await holder.value
            for task in tasks { _ = try await task.value }
            #expect(server.requests == ["/held", "/c", "/a", "/b"])
        }
    }

    @Test func perHostCapDoesNotHoldUpOtherHosts() async throws {
        let gate = FixtureGate()
        let busyRoutes: [String: FixtureServer.Route] = [
            "/held": .gated(Data("held".utf8), contentType: "text/plain", gate: gate),
            "/next": .file(Data("next".utf8), contentType: "text/plain")
        ]
        try await withServer(busyRoutes) { busy in
            try await withServer(["/other": .file(Data("other".utf8), contentType: "text/plain")]) { other in
                let scheduler = FetchScheduler(configuration: .init(maxConcurrent: 4, maxPerHost: 1))
                let busyHost = FetchScheduler.hostKey(for: busy.url("/"))
                let held = Task { try await scheduler.run(host: busyHost) { try await fetchData(busy.url("/held")) } }
                await gate.waitForArrivals(1)
                let next = Task { try await scheduler.run(host: busyHost) { try await fetchData(busy.url("/next")) } }
                try await waitUntil("the second request to the busy host is queued") { scheduler.queuedCount == 1 }

                // Another host runs at once although the busy host has a waiter ahead of it.
                let otherData = try await scheduler.run(host: FetchScheduler.hostKey(for: other.url("/"))) {
                    try await fetchData(other.url("/other"))
                }
                #expect(otherData == Data("other".utf8))
                #expect(busy.requestCount(for: "/next") == 0)
                #expect(scheduler.queuedCount == 1 && scheduler.runningCount == 1)

                gate.open()
                #expect(try await held.value == Data("held".utf8))
                #expect(try await next.value == Data("next".utf8))
                #expect(busy.peakInFlight == 1)
            }
        }
    }

    @Test func neverMoreThanMaxConcurrentAtTheOrigin() async throws {
        let gate = FixtureGate()
        try await withServer([
            "/held": .gated(
                patternData(count: 5_000), contentType: "application/octet-stream",
                gate: gate)
        ]) { server in
            let scheduler = FetchScheduler(configuration: .init(maxConcurrent: 2))
            let host = FetchScheduler.hostKey(for: server.url("/"))
            let tasks = (0..<6).map { _ in
                Task { try await scheduler.run(host: host) { try await fetchData(server.url("/held")) } }
            }
            await gate.waitForArrivals(2)
            try await waitUntil("the other four are queued") { scheduler.queuedCount == 4 }
            #expect(scheduler.runningCount == 2)
            gate.open()
            for task in tasks { #expect(try await task.value == patternData(count: 5_000)) }
            #expect(server.requestCount(for: "/held") == 6)
            #expect(server.peakInFlight == 2)
            #expect(scheduler.runningCount == 0 && scheduler.queuedCount == 0)
        }
    }

    @Test func cancellingAQueuedWaiterRemovesItAndFreesNothing() async throws {
        let gate = FixtureGate()
        try await withServer([
            "/held": .gated(Data("held".utf8), contentType: "text/plain", gate: gate),
            "/a": .file(Data("a".utf8), contentType: "text/plain"),
            "/b": .file(Data("b".utf8), contentType: "text/plain")
        ]) { server in
            let scheduler = FetchScheduler(configuration: .init(maxConcurrent: 1))
            let host = FetchScheduler.hostKey(for: server.url("/"))
            let holder = Task { try await scheduler.run(host: host) { try await fetchData(server.url("/held")) } }
            await gate.waitForArrivals(1)
            let cancelled = Task { try await scheduler.run(host: host) { try await fetchData(server.url("/a")) } }
            try await waitUntil("a is queued") { scheduler.queuedCount == 1 }
            let survivor = Task { try await scheduler.run(host: host) { try await fetchData(server.url("/b")) } }
            try await waitUntil("b is queued") { scheduler.queuedCount == 2 }

            cancelled.cancel()
            let error = await caughtError { _ = try await cancelled.value }
            #expect(error as? TroveError == .cancelled)
            #expect(scheduler.queuedCount == 1)
            #expect(scheduler.runningCount == 1)  // the held fetch keeps its slot; no slot was freed or taken

            gate.open()
            #expect(try await holder.value == Data("held".utf8))
            #expect(try await survivor.value == Data("b".utf8))
            #expect(server.requests == ["/held", "/b"])
            #expect(scheduler.runningCount == 0 && scheduler.queuedCount == 0)
        }
    }

    @Test func cancellingRunningWorkCancelsTheFetchAndFreesTheSlot() async throws {
        let gate = FixtureGate()
        try await withServer(["/held": .gated(Data("held".utf8), contentType: "text/plain", gate: gate)]) { server in
            let scheduler = FetchScheduler(configuration: .init(maxConcurrent: 1))
            let task = Task {
                try await scheduler.run(host: FetchScheduler.hostKey(for: server.url("/"))) {
                    try await fetchData(server.url("/held"))
                }
            }
            await gate.waitForArrivals(1)
            task.cancel()
            let error = await caughtError { _ = try await task.value }
            #expect(error as? TroveError == .cancelled)
            #expect(scheduler.runningCount == 0)
        }
    }

    @Test func alreadyCancelledCallerNeverRuns() async throws {
        let scheduler = FetchScheduler()
        let ran = Recorder<Bool>()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await scheduler.run(host: "h") { ran.append(true) }
        }
        let error = await caughtError { try await task.value }
        #expect(error as? TroveError == .cancelled)
        #expect(ran.all.isEmpty)
        #expect(scheduler.runningCount == 0 && scheduler.queuedCount == 0)
    }

    @Test func hostKeyIncludesThePort() {
        #expect(FetchScheduler.hostKey(for: URL(string: "http://Example.COM:8080/a.png")!) == "example.com:8080")
        #expect(FetchScheduler.hostKey(for: URL(string: "https://example.com/a.png")!) == "example.com")
    }

    @Test func limitsBelowOneAreRaisedToOne() {
        let configuration = FetchSchedulerConfiguration(maxConcurrent: 0, maxPerHost: -3)
        #expect(configuration.maxConcurrent == 1 && configuration.maxPerHost == 1)
    }
}
