import Foundation
import Synchronization
import Tracing
import TroveCore

/// One job per key: however many callers ask for a key's work at once, it runs once and every caller gets
/// its result. The job owns its waiters: their answers, progress, previews and priorities (`JobHandle`), and
/// their cancellation. A caller that cancels, or that `cancel(where:)` picks, is answered at once with
/// `TroveError.cancelled` while the others keep waiting; the work is cancelled only when its last waiter has
/// gone. `package`: `trove serve` shares its encoded results the same way.
///
/// An image request meets two levels of jobs:
///
///     request A ─┐                        ┌─ progress, previews flow up (JobHandle.report, deliverPreview)
///     request B ─┴─ processed job (key.processed, policy) ── as one waiter ──┐
///     request C ─── processed job (other size, same source) ── as one waiter ─┴─ fetch job (key.raw, policy)
///                                         └─ priority flows down (JobHandle.onPriorityChange)
///
/// A job waits on deeper work as `JobHandle.asWaiter()`, so the fetch job sees each processed job once,
/// however many requests wait on it, and every request joins exactly one job.
package final class Jobs<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// One caller's wait: a waiter may be waiting more than once only by mistake, and then its first
    /// registration with the handle stands (`JobHandle.add`).
    private struct Wait {
        let waiter: JobWaiter
        let continuation: CheckedContinuation<Value, any Error>
        /// Whether this wait registered the waiter with the handle, so its end must remove it.
        let registered: Bool
    }

    private struct Job {
        let id: UInt64
        let handle: JobHandle
        var task: Task<Void, Never>?
        var waits: [UInt64: Wait] = [:]
    }

    private let jobs = Mutex<[Key: Job]>([:])
    private let startsImmediately: Bool
    private let deadlines: DeadlineTimer

    /// With `startsImmediately`, the work begins on the first caller's thread and runs there until it first
    /// suspends, instead of waiting for the pool to pick up a new task: for work that quickly hands off to
    /// I/O (a network fetch), this saves a thread wake per miss. Leave it off for work that computes before
    /// it suspends (decoding), which must not run on a caller's thread.
    package convenience init(startsImmediately: Bool = false) {
        self.init(startsImmediately: startsImmediately, deadlines: .shared)
    }

    /// As `init(startsImmediately:)`, keeping waits' deadlines in `deadlines` (a test's own timer).
    init(startsImmediately: Bool = false, deadlines: DeadlineTimer) {
        self.startsImmediately = startsImmediately
        self.deadlines = deadlines
    }

    /// Number of keys with work in flight (for tests and stats).
    package var inFlightCount: Int { jobs.withLock { $0.count } }

    /// Joins the job for `key` as `waiter`, or starts `work` as a new job when there is none. `onJoin` runs
    /// when the caller joined a job another caller started. A waiter that is itself a job (`asWaiter()`)
    /// has this job follow its priority from then on (`JobHandle.add`). When tracing, new work runs under
    /// the waiter's span (`JobHandle.span`), and a waiter that joins links its span to the work's.
    /// With a `deadline`, a wait still going at its instant ends with its error, as a cancelled one does.
    package func value(
        forKey key: Key, as waiter: JobWaiter = JobWaiter(), deadline: JobDeadline? = nil,
        onJoin: @Sendable () -> Void = {}, work: @escaping @Sendable (JobHandle) async throws -> Value
    ) async throws -> Value {
        let waitID = JobWaiter.nextID()
        // Set only while the continuation is being registered, before this task suspends.
        var ticket: DeadlineTimer.Ticket?
        defer { if let ticket { deadlines.cancel(ticket) } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                // Decided under the lock, so a cancellation can never slip between the check and the registration.
                let arrival: Arrival = jobs.withLock { jobs in
                    if Task.isCancelled { return .cancelled }
                    if var job = jobs[key] {
                        let registered = job.handle.add(waiter)
                        job.waits[waitID] = Wait(waiter: waiter, continuation: continuation, registered: registered)
                        jobs[key] = job
                        return .joined(job.handle)
                    }
                    let handle = JobHandle(waiter)
                    let id = JobWaiter.nextID()
                    jobs[key] = Job(
                        id: id, handle: handle,
                        waits: [waitID: Wait(waiter: waiter, continuation: continuation, registered: true)])
                    return .started(id, handle)
                }
                if let deadline, !arrival.isCancelled {
                    // After the wait is registered, so the deadline always finds it (or finds it answered).
                    ticket = deadlines.schedule(at: deadline.instant) { [self] in
                        leave(key, picking: { id, _ in id == waitID }, answering: deadline.error)
                    }
                }
                switch arrival {
                case .cancelled:
                    continuation.resume(throwing: TroveError.cancelled)
                case let .joined(handle):
                    onJoin()
                    Self.link(waiter, to: handle)
                case let .started(id, handle):
                    start(id, key: key, handle: handle, work: work)
                }
            }
        } onCancel: {
            leave(key, picking: { id, _ in id == waitID })
        }
    }

    /// Changes `waiter`'s say in the priority of `key`'s job.
    package func setPriority(_ priority: RequestPriority, forKey key: Key, waiter: UInt64) {
        jobs.withLock { $0[key]?.handle }?.setPriority(priority, waiter: waiter)
    }

    /// Answers every waiter `matches` picks, in any job, with `TroveError.cancelled`; a job left with no
    /// waiter is cancelled. Returns how many waiters were answered.
    @discardableResult
    package func cancel(where matches: (JobWaiter) -> Bool) -> Int {
        let keys = jobs.withLock { jobs in
            jobs.compactMap { key, job in job.waits.values.contains { matches($0.waiter) } ? key : nil }
        }
        var count = 0
        for key in keys {
            count += leave(key, picking: { _, wait in matches(wait.waiter) })
        }
        return count
    }

    /// Ends the waits of `key`'s job that `picks` chooses, answering them with `error`, and cancels the job
    /// if none is left.
    @discardableResult
    private func leave(
        _ key: Key, picking picks: (_ waitID: UInt64, Wait) -> Bool,
        answering error: any Error = TroveError.cancelled
    ) -> Int {
        let (left, orphaned, handle) = jobs.withLock { jobs -> ([Wait], Task<Void, Never>?, JobHandle?) in
            guard var job = jobs[key] else { return ([], nil, nil) }
            let chosen = job.waits.filter { picks($0.key, $0.value) }
            guard !chosen.isEmpty else { return ([], nil, nil) }
            for id in chosen.keys { job.waits.removeValue(forKey: id) }
            if job.waits.isEmpty {
                jobs.removeValue(forKey: key)
                return (Array(chosen.values), job.task, job.handle)
            }
            jobs[key] = job
            return (Array(chosen.values), nil, job.handle)
        }
        for wait in left {
            if wait.registered { handle?.remove(wait.waiter.id) }
            wait.continuation.resume(throwing: error)
        }
        orphaned?.cancel()
        if orphaned != nil { handle?.finish() }
        return left.count
    }

    /// A joiner's span links to the span the work it joined runs under, so a trace shows what it waited for.
    private static func link(_ waiter: JobWaiter, to handle: JobHandle) {
        guard let joiner = waiter.span, let work = handle.span else { return }
        joiner.addLink(SpanLink(context: work.context, attributes: [:]))
        joiner.attributes["trove.coalesced"] = true
    }

    private func start(
        _ id: UInt64, key: Key, handle: JobHandle, work: @escaping @Sendable (JobHandle) async throws -> Value
    ) {
        let run: @Sendable () async -> Void = {
            let result: Result<Value, any Error>
            do {
                if let span = handle.span {
                    // Said, not left to the task's inherited locals: the work's spans are children of the
                    // starting caller's, whoever waits on it later.
                    result = .success(try await ServiceContext.withValue(span.context) { try await work(handle) })
                } else {
                    result = .success(try await work(handle))
                }
            } catch {
                result = .failure(error)
            }
            // Only finish our own job: if every waiter left, a newer job may own the key by now.
            let waits = self.jobs.withLock { jobs -> [Wait] in
                guard let job = jobs[key], job.id == id else { return [] }
                jobs.removeValue(forKey: key)
                return Array(job.waits.values)
            }
            for wait in waits { wait.continuation.resume(with: result) }
            handle.finish()
        }
        let task = startsImmediately ? Task.immediate(operation: run) : Task(operation: run)
        let abandoned = jobs.withLock { jobs -> Bool in
            guard jobs[key]?.id == id else { return true }
            jobs[key]?.task = task
            return false
        }
        // Every waiter left before the task handle was stored.
        if abandoned { task.cancel() }
    }
}

/// What happened when a caller arrived at a key.
private enum Arrival {
    case cancelled
    case joined(JobHandle)
    case started(UInt64, JobHandle)

    var isCancelled: Bool {
        if case .cancelled = self { true } else { false }
    }
}

/// When a wait for a job gives up, and what it is answered with then (a 504's error, say). The job goes on
/// while other waiters remain, and is cancelled when the last has gone.
package struct JobDeadline: Sendable {
    /// The instant the wait ends.
    package let instant: ContinuousClock.Instant
    /// What the wait throws then.
    package let error: any Error

    /// A deadline at `instant`, answering `error`.
    package init(at instant: ContinuousClock.Instant, error: any Error) {
        self.instant = instant
        self.error = error
    }
}

extension Jobs {
    /// Answers every waiter for `url` with `TroveError.cancelled`, URLs compared as cache keys spell them
    /// (`CacheKey.normalized`, so `HTTP://Host:80/a` reaches `http://host/a`): normalised here, as cancelling
    /// is rare and joining is not. Returns how many.
    @discardableResult
    func cancel(url: URL) -> Int {
        let normalized = CacheKey.normalized(url)
        return cancel { waiter in waiter.url.map { CacheKey.normalized($0) == normalized } ?? false }
    }
}
