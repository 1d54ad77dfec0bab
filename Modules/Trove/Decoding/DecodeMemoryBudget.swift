import Synchronization
import TroveCore

/// Bounds the memory all decodes in a pipeline hold at once. Each decode reserves its footprint
/// (`DecodeFootprint`, read from the header) before it starts and releases it when its result is made.
/// A reservation that does not fit waits in one first-in, first-out queue: a later, smaller one never
/// passes it, so a large source is not starved. A source larger than the whole budget is refused at once
/// (`tooLargeToDecode`); past `queueLimit` waiting requests a new one is refused (`decodeMemoryBusy`);
/// a wait that reaches its deadline gives up (`decodeMemoryWaitExpired`).
///
/// Reservations are named by the decode they pay for: another reservation under a key already held (or
/// waiting) rides on it and adds nothing, since the pipeline shares that one decode between them.
package final class DecodeMemoryBudget: Sendable {
    /// Why a reservation was refused, for metrics.
    package enum Refusal: String, Sendable, CaseIterable {
        /// The source alone needs more than the whole budget.
        case tooLarge = "too_large"
        /// Every byte was reserved and the queue was full.
        case queueFull = "queue_full"
        /// The request waited until its deadline.
        case deadline
    }

    /// What the budget holds now, and what it has refused since it was made.
    package struct Snapshot: Sendable, Equatable {
        /// The budget in bytes.
        package var capacity: Int
        /// Bytes reserved by running decodes.
        package var reserved: Int
        /// Requests waiting for room (riders on a waiting key included).
        package var waiting: Int
        /// Refusals so far, by cause.
        package var refusals: [Refusal: Int]

        /// A snapshot with these numbers.
        package init(capacity: Int, reserved: Int, waiting: Int, refusals: [Refusal: Int]) {
            self.capacity = capacity
            self.reserved = reserved
            self.waiting = waiting
            self.refusals = refusals
        }
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// A queued key: the bytes it needs and every request waiting on it.
    private struct QueuedKey {
        let key: String
        let bytes: Int
        var waiters: [Waiter]
    }

    private struct State {
        var reserved = 0
        /// Keys holding bytes: how many and how many requests ride on each.
        var holders: [String: (bytes: Int, riders: Int)] = [:]
        /// Waiting keys, oldest first.
        var queue: [QueuedKey] = []
        var nextID: UInt64 = 0
        var refusals: [Refusal: Int] = [:]

        var waitingCount: Int { queue.reduce(0) { $0 + $1.waiters.count } }

        /// Moves queued keys into the budget from the front while they fit; returns who may go.
        mutating func admitFromQueue(capacity: Int) -> [Waiter] {
            var woken: [Waiter] = []
            while let first = queue.first, reserved + first.bytes <= capacity {
                queue.removeFirst()
                reserved += first.bytes
                holders[first.key] = (first.bytes, first.waiters.count)
                woken += first.waiters
            }
            return woken
        }
    }

    /// The budget in bytes.
    package let capacity: Int
    /// Most requests waiting at once; past it a reservation that must wait is refused.
    package let queueLimit: Int
    private let state = Mutex(State())

    /// A budget of `capacity` bytes (at least 1) with a queue of at most `queueLimit` waiting requests.
    package init(capacity: Int, queueLimit: Int = .max) {
        self.capacity = max(1, capacity)
        self.queueLimit = max(0, queueLimit)
    }

    /// When the wait for room ends, for a request that sets one (the server sets it from the request's own
    /// deadline, so the budget answers before the whole request times out); nil lets the caller decide.
    @TaskLocal package static var waitDeadline: ContinuousClock.Instant?

    /// What the budget holds now.
    package var snapshot: Snapshot {
        state.withLock {
            Snapshot(capacity: capacity, reserved: $0.reserved, waiting: $0.waitingCount, refusals: $0.refusals)
        }
    }

    private enum Decision {
        case go
        case wait
        case refuse(Refusal, waiting: Int)
    }

    /// Takes `bytes` for `key` when they fit and nobody waits ahead; else says whether to queue or refuse.
    private func enter(_ key: String, bytes: Int, _ state: inout State) -> Decision {
        if let holder = state.holders[key] {
            state.holders[key] = (holder.bytes, holder.riders + 1)
            return .go
        }
        if bytes > capacity { return .refuse(.tooLarge, waiting: state.waitingCount) }
        if state.queue.isEmpty && state.reserved + bytes <= capacity {
            state.reserved += bytes
            state.holders[key] = (bytes, 1)
            return .go
        }
        let joinsQueuedKey = state.queue.contains { $0.key == key }
        if !joinsQueuedKey && state.waitingCount >= queueLimit {
            return .refuse(.queueFull, waiting: state.waitingCount)
        }
        return .wait
    }

    /// Reserves `bytes` for the decode named `key`, waiting (first in, first out) until they fit or
    /// `deadline` passes. Throws `tooLargeToDecode`, `decodeMemoryBusy`, `decodeMemoryWaitExpired`, or
    /// `CancellationError` when the task is cancelled while it waits. Release what it returns when the
    /// decode's memory is gone.
    package func reserve(
        _ bytes: Int, for key: String, until deadline: ContinuousClock.Instant
    ) async throws -> DecodeReservation {
        let bytes = max(0, bytes)
        let start = ContinuousClock.now
        let (decision, id) = state.withLock { state -> (Decision, UInt64) in
            state.nextID += 1
            return (enter(key, bytes: bytes, &state), state.nextID)
        }
        switch decision {
        case .go: return DecodeReservation(budget: self, key: key)
        case let .refuse(cause, waiting): throw refused(cause, bytes: bytes, waiting: waiting, since: start)
        case .wait: break
        }
        var timer: DeadlineTimer.Ticket?
        defer { if let timer { DeadlineTimer.shared.cancel(timer) } }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Decided again under the lock that queues the waiter, so a release cannot slip between.
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    switch enter(key, bytes: bytes, &state) {
                    case .go: return .success(())
                    case let .refuse(cause, waiting):
                        return .failure(refused(cause, bytes: bytes, waiting: waiting, since: start, &state))
                    case .wait:
                        let waiter = Waiter(id: id, continuation: continuation)
                        if let index = state.queue.firstIndex(where: { $0.key == key }) {
                            state.queue[index].waiters.append(waiter)
                        } else {
                            state.queue.append(QueuedKey(key: key, bytes: bytes, waiters: [waiter]))
                        }
                        return nil
                    }
                }
                if let outcome {
                    continuation.resume(with: outcome)
                } else {
                    // Set once queued, so it always finds the waiter: it takes it out and fails it.
                    timer = DeadlineTimer.shared.schedule(at: deadline) { [weak self] in
                        self?.remove(id, from: key, failing: .deadline, bytes: bytes, since: start)
                    }
                }
            }
        } onCancel: {
            remove(id, from: key, failing: nil, bytes: bytes, since: start)
        }
        return DecodeReservation(budget: self, key: key)
    }

    /// Counts a refusal and makes its error.
    private func refused(
        _ cause: Refusal, bytes: Int, waiting: Int, since start: ContinuousClock.Instant, _ state: inout State
    ) -> TroveError {
        state.refusals[cause, default: 0] += 1
        switch cause {
        case .tooLarge:
            return .tooLargeToDecode(needed: bytes, limit: capacity, setting: "decodeMemoryBudget")
        case .queueFull:
            return .decodeMemoryBusy(needed: bytes, budget: capacity, waiting: waiting)
        case .deadline:
            return .decodeMemoryWaitExpired(needed: bytes, budget: capacity, waited: .now - start)
        }
    }

    private func refused(
        _ cause: Refusal, bytes: Int, waiting: Int, since start: ContinuousClock.Instant
    ) -> TroveError {
        state.withLock { refused(cause, bytes: bytes, waiting: waiting, since: start, &$0) }
    }

    /// Takes a waiter out of the queue (if it is still there) and fails it: with the deadline's error, or
    /// with `CancellationError` when `cause` is nil. Whoever waited behind it may now fit.
    private func remove(
        _ id: UInt64, from key: String, failing cause: Refusal?, bytes: Int, since start: ContinuousClock.Instant
    ) {
        let (removed, error, woken) = state.withLock { state -> (Waiter?, (any Error)?, [Waiter]) in
            guard let index = state.queue.firstIndex(where: { $0.key == key }),
                let position = state.queue[index].waiters.firstIndex(where: { $0.id == id })
            else { return (nil, nil, []) }
            let waiter = state.queue[index].waiters.remove(at: position)
            if state.queue[index].waiters.isEmpty { state.queue.remove(at: index) }
            let error: any Error =
                cause.map { refused($0, bytes: bytes, waiting: state.waitingCount, since: start, &state) }
                ?? CancellationError()
            return (waiter, error, state.admitFromQueue(capacity: capacity))
        }
        if let removed, let error { removed.continuation.resume(throwing: error) }
        for waiter in woken { waiter.continuation.resume() }
    }

    /// Gives back one request's share of `key`; the last one out frees its bytes for the queue.
    fileprivate func release(_ key: String) {
        let woken = state.withLock { state -> [Waiter] in
            guard let holder = state.holders[key] else { return [] }
            if holder.riders > 1 {
                state.holders[key] = (holder.bytes, holder.riders - 1)
                return []
            }
            state.holders[key] = nil
            state.reserved -= holder.bytes
            return state.admitFromQueue(capacity: capacity)
        }
        for waiter in woken { waiter.continuation.resume() }
    }
}

/// One request's hold on the decode memory budget; `release()` gives it back (once; later calls do nothing).
package final class DecodeReservation: Sendable {
    private let budget: DecodeMemoryBudget
    private let key: String
    private let released = Atomic(false)

    fileprivate init(budget: DecodeMemoryBudget, key: String) {
        self.budget = budget
        self.key = key
    }

    /// Gives the bytes back to the budget.
    package func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        budget.release(key)
    }
}
