import Foundation
import Testing
import Trove

/// The decode memory budget on its own: room taken and given back, first in first out, the queue bound,
/// the deadline, a source over the whole budget, and requests sharing one decode sharing one reservation.
@Suite struct DecodeMemoryBudgetTests {
    /// A deadline far enough away never to matter in a test.
    static let later = ContinuousClock.now + .seconds(3600)

    /// Waits (without a clock) until the budget has `count` requests waiting.
    static func untilWaiting(_ budget: DecodeMemoryBudget, _ count: Int) async {
        while budget.snapshot.waiting < count { await Task.yield() }
    }

    @Test func aRequestThatDoesNotFitWaitsAndGoesWhenAnotherFinishes() async throws {
        let budget = DecodeMemoryBudget(capacity: 100)
        let first = try await budget.reserve(60, for: "a", until: Self.later)
        #expect(budget.snapshot.reserved == 60)
        let second = Task { try await budget.reserve(60, for: "b", until: Self.later) }
        await Self.untilWaiting(budget, 1)
        #expect(budget.snapshot.reserved == 60)
        first.release()
        let reservation = try await second.value
        #expect(budget.snapshot == .init(capacity: 100, reserved: 60, waiting: 0, refusals: [:]))
        reservation.release()
        // A second release of the same reservation gives nothing back twice.
        first.release()
        #expect(budget.snapshot.reserved == 0)
    }

    @Test func aSmallRequestDoesNotPassALargeOneWaitingAhead() async throws {
        let budget = DecodeMemoryBudget(capacity: 100)
        let first = try await budget.reserve(60, for: "a", until: Self.later)
        let large = Task { try await budget.reserve(80, for: "large", until: Self.later) }
        await Self.untilWaiting(budget, 1)
        // 30 bytes would fit next to the 60 held, but the 80 came first: the 30 waits behind it.
        let small = Task { try await budget.reserve(30, for: "small", until: Self.later) }
        await Self.untilWaiting(budget, 2)
        #expect(budget.snapshot.reserved == 60)
        first.release()
        let largeReservation = try await large.value
        // 80 + 30 is over 100: the small one still waits for the large one.
        #expect(budget.snapshot.reserved == 80 && budget.snapshot.waiting == 1)
        largeReservation.release()
        try await small.value.release()
        #expect(budget.snapshot.reserved == 0 && budget.snapshot.waiting == 0)
    }

    @Test func aFullQueueRefusesAtOnce() async throws {
        let budget = DecodeMemoryBudget(capacity: 100, queueLimit: 1)
        let first = try await budget.reserve(100, for: "a", until: Self.later)
        let queued = Task { try await budget.reserve(50, for: "b", until: Self.later) }
        await Self.untilWaiting(budget, 1)
        await #expect(throws: TroveError.decodeMemoryBusy(needed: 50, budget: 100, waiting: 1)) {
            _ = try await budget.reserve(50, for: "c", until: Self.later)
        }
        #expect(budget.snapshot.refusals == [.queueFull: 1])
        first.release()
        try await queued.value.release()
    }

    @Test func aSourceLargerThanTheWholeBudgetIsRefusedAtOnce() async throws {
        let budget = DecodeMemoryBudget(capacity: 100, queueLimit: 10)
        await #expect(throws: TroveError.tooLargeToDecode(needed: 101, limit: 100, setting: "decodeMemoryBudget")) {
            _ = try await budget.reserve(101, for: "a", until: Self.later)
        }
        #expect(budget.snapshot == .init(capacity: 100, reserved: 0, waiting: 0, refusals: [.tooLarge: 1]))
    }

    @Test func aWaitPastItsDeadlineFailsAndLeavesTheQueue() async throws {
        let budget = DecodeMemoryBudget(capacity: 100)
        let first = try await budget.reserve(70, for: "a", until: Self.later)
        // A deadline already passed: the wait ends as soon as it has begun.
        let error = await #expect(throws: TroveError.self) {
            _ = try await budget.reserve(50, for: "b", until: .now)
        }
        guard case let .decodeMemoryWaitExpired(needed, capacity, _)? = error else {
            Issue.record("expected decodeMemoryWaitExpired, got \(String(describing: error))")
            return
        }
        #expect(needed == 50 && capacity == 100)
        #expect(budget.snapshot.waiting == 0 && budget.snapshot.refusals == [.deadline: 1])
        // Its place is not held: the next one fits as soon as the first is done.
        first.release()
        try await budget.reserve(100, for: "c", until: Self.later).release()
    }

    @Test func requestsSharingADecodeShareOneReservation() async throws {
        let budget = DecodeMemoryBudget(capacity: 100, queueLimit: 0)
        let first = try await budget.reserve(80, for: "same source", until: Self.later)
        // Another request for the same decode adds nothing and need not queue.
        let second = try await budget.reserve(80, for: "same source", until: Self.later)
        #expect(budget.snapshot.reserved == 80)
        first.release()
        #expect(budget.snapshot.reserved == 80)
        second.release()
        #expect(budget.snapshot.reserved == 0)
    }

    @Test func aCancelledWaiterLeavesTheQueueForTheNext() async throws {
        let budget = DecodeMemoryBudget(capacity: 100)
        let first = try await budget.reserve(60, for: "a", until: Self.later)
        let large = Task { try await budget.reserve(90, for: "large", until: Self.later) }
        await Self.untilWaiting(budget, 1)
        let small = Task { try await budget.reserve(40, for: "small", until: Self.later) }
        await Self.untilWaiting(budget, 2)
        large.cancel()
        await #expect(throws: CancellationError.self) { _ = try await large.value }
        // With the large one gone from the head, the small one fits next to the 60 held.
        try await small.value.release()
        first.release()
        #expect(budget.snapshot.reserved == 0)
    }
}
