import Synchronization
import TroveCore

/// Runs one piece of work per key however many callers ask for it at once; every caller gets the same
/// result. A caller that cancels is answered at once with `TroveError.cancelled` while the others keep
/// waiting; the shared work is cancelled only when its last waiter has gone. `package`: `trove serve` shares
/// its encoded results the same way.
package final class TaskCoalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Job {
        let id: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<Value, any Error>]
    }

    private struct State {
        var jobs: [Key: Job] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    private let startsImmediately: Bool

    /// With `startsImmediately`, shared work begins on the first caller's thread and runs there until it
    /// first suspends, instead of waiting for the pool to pick up a new task: for work that quickly hands
    /// off to I/O (a network fetch), this saves a thread wake per miss. Leave it off for work that computes
    /// before it suspends (decoding), which must not run on a caller's thread.
    package init(startsImmediately: Bool = false) {
        self.startsImmediately = startsImmediately
    }

    /// Number of keys with work in flight (for tests and stats).
    package var inFlightCount: Int { state.withLock { $0.jobs.count } }

    /// Joins the work in flight for `key`, or starts `work` when there is none. `onJoin` runs when the
    /// caller joined work another caller started.
    package func value(
        forKey key: Key, onJoin: @Sendable () -> Void = {},
        work: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let waiterID = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                // Decided under the lock, so a cancellation can never slip between the check and the registration.
                let registration: WaiterRegistration = state.withLock { state in
                    if Task.isCancelled { return .cancelled }
                    if state.jobs[key] != nil {
                        state.jobs[key]?.waiters[waiterID] = continuation
                        return .joined
                    }
                    state.nextID += 1
                    state.jobs[key] = Job(id: state.nextID, task: nil, waiters: [waiterID: continuation])
                    return .started(jobID: state.nextID)
                }
                switch registration {
                case .cancelled:
                    continuation.resume(throwing: TroveError.cancelled)
                case .joined:
                    onJoin()
                case let .started(jobID):
                    start(jobID: jobID, key: key, work: work)
                }
            }
        } onCancel: {
            let (waiter, orphanedTask) = state.withLock {
                state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) in
                guard var job = state.jobs[key], let waiter = job.waiters.removeValue(forKey: waiterID) else {
                    return (nil, nil)
                }
                if job.waiters.isEmpty {
                    state.jobs.removeValue(forKey: key)
                    return (waiter, job.task)
                }
                state.jobs[key] = job
                return (waiter, nil)
            }
            waiter?.resume(throwing: TroveError.cancelled)
            orphanedTask?.cancel()
        }
    }

    private func start(jobID: UInt64, key: Key, work: @escaping @Sendable () async throws -> Value) {
        let run: @Sendable () async -> Void = {
            let result: Result<Value, any Error>
            do {
                result = .success(try await work())
            } catch {
                result = .failure(error)
            }
            // Only finish our own job: if every waiter left, a newer job may own the key by now.
            let waiters = self.state.withLock { state -> [CheckedContinuation<Value, any Error>] in
                guard let job = state.jobs[key], job.id == jobID else { return [] }
                state.jobs.removeValue(forKey: key)
                return Array(job.waiters.values)
            }
            for waiter in waiters { waiter.resume(with: result) }
        }
        let task = startsImmediately ? Task.immediate(operation: run) : Task(operation: run)
        let abandoned = state.withLock { state -> Bool in
            guard state.jobs[key]?.id == jobID else { return true }
            state.jobs[key]?.task = task
            return false
        }
        // Every waiter cancelled before the task handle was stored.
        if abandoned { task.cancel() }
    }
}

/// What happened when a caller arrived at a `TaskCoalescer`.
private enum WaiterRegistration {
    case cancelled, joined, started(jobID: UInt64)
}
