import Synchronization
import Testing

@testable import Trove

@Suite(.timeLimit(.minutes(1))) struct JobsTests {
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
        let work = sleepingWork(countingCancellationsIn: sawCancellation, started: started)
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

    @Test func aWaitPastItsDeadlineEndsWithItsErrorWhileTheOthersWait() async throws {
        let coalescer = Jobs<String, String>()
        let gate = Gate()
        let runs = Counter()
        let joins = Counter()
        let work: @Sendable (JobHandle) async throws -> String = { _ in
            runs.increment()
            await gate.wait()
            return "done"
        }
        let patient = Task { try await coalescer.value(forKey: "k", work: work) }
        while runs.value == 0 { await Task.yield() }
        let started = ContinuousClock.now
        let hurried = Task {
            try await coalescer.value(
                forKey: "k", deadline: JobDeadline(at: started + .milliseconds(150), error: Late()),
                onJoin: { joins.increment() }, work: work)
        }
        // Answered at its deadline while the work is still blocked, not before it.
        await #expect(throws: Late()) { try await hurried.value }
        #expect(ContinuousClock.now - started >= .milliseconds(150))
        #expect(joins.value == 1)
        await gate.open()
        #expect(try await patient.value == "done")
        #expect(runs.value == 1)
    }

    @Test func theLastWaitPastItsDeadlineCancelsTheWork() async throws {
        let coalescer = Jobs<String, Int>()
        let sawCancellation = Counter()
        let work = sleepingWork(countingCancellationsIn: sawCancellation)
        await #expect(throws: Late()) {
            try await coalescer.value(
                forKey: "k", deadline: JobDeadline(at: .now + .milliseconds(50), error: Late()),
                work: work)
        }
        while sawCancellation.value == 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(coalescer.inFlightCount == 0)
    }

    @Test func aWaitAnsweredBeforeItsDeadlineKeepsItsValueAndLeavesNoDeadlinePending() async throws {
        let timer = DeadlineTimer()
        let coalescer = Jobs<String, Int>(deadlines: timer)
        let gate = Gate()
        let runs = Counter()
        let deadline = JobDeadline(at: .now + .seconds(30), error: Late())
        let waits = (0..<3).map { _ in
            Task {
                try await coalescer.value(forKey: "k", deadline: deadline) { _ in
                    runs.increment()
                    await gate.wait()
                    return 5
                }
            }
        }
        while timer.pendingCount < 3 { await Task.yield() }
        await gate.open()
        for wait in waits { #expect(try await wait.value == 5) }
        #expect(runs.value == 1)
        // Each wait took its deadline back when it was answered: nothing is left to fire.
        #expect(timer.pendingCount == 0)
        #expect(coalescer.inFlightCount == 0)
    }

    @Test func errorsReachEveryWaiter() async {
        let coalescer = Jobs<String, Int>()
        await #expect(throws: TroveError.notCached(key: "x")) {
            try await coalescer.value(forKey: "x") { _ in throw TroveError.notCached(key: "x") }
        }
    }
}

/// Work that sleeps 30 s unless cancelled, counting its cancellations; `started` opens when it begins.
private func sleepingWork(
    countingCancellationsIn cancellations: Counter, started: Gate? = nil
) -> @Sendable (JobHandle) async throws -> Int {
    { _ in
        await started?.open()
        do {
            try await Task.sleep(for: .seconds(30))
        } catch {
            cancellations.increment()
            throw error
        }
        return 1
    }
}

/// The error a deadline answers with in these tests.
private struct Late: Error, Equatable {}

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

/// Jobs let go of their handles once they have answered: a job that waits on another holds it as a waiter,
/// and the deeper one follows its priority, which must not keep either alive.
@Suite struct JobLifetimeTests {
    /// A handle held weakly, to see when nothing else holds it.
    private struct WeakHandle: Sendable {
        weak var handle: JobHandle?
    }

    private final class Handles: Sendable {
        private let refs = Mutex<[WeakHandle]>([])
        func keep(_ handle: JobHandle) { refs.withLock { $0.append(WeakHandle(handle: handle)) } }
        var count: Int { refs.withLock { $0.count } }
        var alive: Int { refs.withLock { $0.filter { $0.handle != nil }.count } }
    }

    @Test func aJobWaitingOnAnotherFreesBothWhenTheyEnd() async throws {
        let processed = Jobs<String, Int>()
        let fetches = Jobs<String, Int>()
        let handles = Handles()
        let value = try await processed.value(forKey: "processed") { job in
            handles.keep(job)
            return try await fetches.value(forKey: "raw", as: job.asWaiter()) { deeper in
                handles.keep(deeper)
                return 7
            }
        }
        #expect(value == 7)
        #expect(handles.count == 2)
        // The jobs' tasks end just after they answer; then nothing may hold either handle.
        var waited = 0
        while handles.alive > 0, waited < 200 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        #expect(handles.alive == 0)
    }
}
