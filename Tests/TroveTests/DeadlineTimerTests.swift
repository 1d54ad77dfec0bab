import Synchronization
import Testing

@testable import Trove

@Suite(.timeLimit(.minutes(1))) struct DeadlineTimerTests {
    /// What ran, in order, with when.
    private final class Log: Sendable {
        private let entries = Mutex<[(String, ContinuousClock.Instant)]>([])
        func record(_ name: String) { entries.withLock { $0.append((name, .now)) } }
        var names: [String] { entries.withLock { $0.map(\.0) } }
        func time(of name: String) -> ContinuousClock.Instant? { entries.withLock { $0.first { $0.0 == name }?.1 } }
    }

    @Test func aSoonerDeadlineWakesTheSleepingThreadAndACancelledActionNeverRuns() async throws {
        let timer = DeadlineTimer()
        let log = Log()
        let late = timer.schedule(at: .now + .seconds(5)) { log.record("late") }
        // Let the thread go to sleep until the 5 s deadline: the next ones must wake it.
        try await Task.sleep(for: .milliseconds(50))
        let start = ContinuousClock.now
        let cancelled = timer.schedule(at: start + .milliseconds(400)) { log.record("cancelled") }
        timer.cancel(cancelled)
        _ = timer.schedule(at: start + .milliseconds(150)) { log.record("soon") }
        try await waitUntil { log.names.count == 1 }
        let soon = try #require(log.time(of: "soon"))
        #expect(soon - start >= .milliseconds(150) && soon - start < .seconds(3))
        #expect(timer.pendingCount == 1)
        // Past the cancelled one's deadline: it did not run.
        try await Task.sleep(until: start + .milliseconds(600))
        #expect(log.names == ["soon"])
        timer.cancel(late)
        #expect(timer.pendingCount == 0)
    }

    @Test func aDeadlineAfterAnIdleSpellStillWakesTheThread() async throws {
        let timer = DeadlineTimer()
        let log = Log()
        _ = timer.schedule(at: .now + .milliseconds(20)) { log.record("first") }
        try await waitUntil { log.names == ["first"] }
        // The thread now sleeps with nothing pending; a new deadline must wake it.
        let start = ContinuousClock.now
        _ = timer.schedule(at: start + .milliseconds(50)) { log.record("second") }
        try await waitUntil { log.names == ["first", "second"] }
        #expect(try #require(log.time(of: "second")) - start >= .milliseconds(50))
    }

    @Test func aDeadlineAlreadyPastRunsAtOnceThoughTheThreadSleeps() async throws {
        let timer = DeadlineTimer()
        let log = Log()
        let late = timer.schedule(at: .now + .seconds(5)) { log.record("late") }
        try await Task.sleep(for: .milliseconds(50))
        let start = ContinuousClock.now
        _ = timer.schedule(at: start - .seconds(1)) { log.record("past") }
        try await waitUntil { log.names == ["past"] }
        #expect(try #require(log.time(of: "past")) - start < .seconds(3))
        timer.cancel(late)
    }

    /// Polls `condition` for up to 10 s.
    private func waitUntil(_ condition: () -> Bool) async throws {
        let end = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < end else {
                Issue.record("timed out")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
