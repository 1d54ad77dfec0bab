import Synchronization
import Testing

@testable import Trove

@Suite struct JobsTests {
    @Test func concurrentCallersShareOneRun() async throws {
        let coalescer = Jobs<String, Int>()
        let runs = Counter()
        let joins = Counter()
        let gate = Gate()
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await coalescer.value(forKey: "k", onJoin: { joins.increment() }) { _ in
                        runs.increment()
                        await gate.wait()
                        return 42
                    }
                }
            }
            // Open the gate only once all 50 have registered, so none can start a second run.
            while joins.value < 49 { await Task.yield() }
            await gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: 42, count: 50))
        #expect(runs.value == 1)
        #expect(coalescer.inFlightCount == 0)
    }

    @Test func oneWaiterCancellingLeavesTheOthersServed() async throws {
        let coalescer = Jobs<String, String>()
        let gate = Gate()
        let joins = Counter()
        let work: @Sendable (JobHandle) async throws -> String = { _ in
            await gate.wait(); return "done"
        }
        let leaver = Task { try await coalescer.value(forKey: "k", onJoin: { joins.increment() }, work: work) }
        let stayers = (0..<4).map { _ in
            Task { try await coalescer.value(forKey: "k", onJoin: { joins.increment() }, work: work) }
        }
        while joins.value < 4 { await Task.yield() }
        leaver.cancel()
        // The cancelled waiter is answered at once, while the work is still blocked.
        await #expect(throws: TroveError.cancelled) { try await leaver.value }
        await gate.open()
        for stayer in stayers { #expect(try await stayer.value == "done") }
    }

    @Test func allWaitersCancellingCancelsTheWork() async throws {
        let coalescer = Jobs<String, Int>()
        let sawCancellation = Counter()
        let started = Gate()
        let joins = Counter()
        let work: @Sendable (JobHandle) async throws -> Int = { _ in
            await started.open()
            do {
                try await Task.sleep(for: .seconds(30))
            } catch {
                sawCancellation.increment()
                throw error
            }
            return 1
        }
        let waiters = (0..<5).map { _ in
            Task { try await coalescer.value(forKey: "k", onJoin: { joins.increment() }, work: work) }
        }
        await started.wait()
        while joins.value < 4 { await Task.yield() }
        for waiter in waiters { waiter.cancel() }
        for waiter in waiters { await #expect(throws: TroveError.cancelled) { try await waiter.value } }
        while sawCancellation.value == 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(coalescer.inFlightCount == 0)
        // The key is free for new work.
        #expect(try await coalescer.value(forKey: "k") { _ in 7 } == 7)
    }

    @Test func errorsReachEveryWaiter() async {
        let coalescer = Jobs<String, Int>()
        await #expect(throws: TroveError.notCached(key: "x")) {
            try await coalescer.value(forKey: "x") { _ in throw TroveError.notCached(key: "x") }
        }
    }
}

/// An async latch: `wait` suspends until `open` has been called.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }
}

/// A counter tasks can share (an `Atomic` itself cannot be captured by escaping closures).
final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}
