import Synchronization
import TroveCore
import TroveFetcher

/// Per raw key, what every caller waiting on one coalesced fetch wants from it: its progress events,
/// previews for those that asked, and a say in the fetch's scheduling priority (the highest any waiter
/// asks for).
final class FetchJobs: Sendable {
    private struct Waiter {
        var priority: RequestPriority
        let progress: @Sendable (FetchProgress) -> Void
        let previews: PreviewRequest?
    }

    private struct Job {
        let ticket: SchedulerTicket
        var waiters: [UInt64: Waiter] = [:]
    }

    private let jobs = Mutex<[WorkKey: Job]>([:])

    /// Joins (or creates) the job for `key`. A waiter joins a key once: returns false, changing nothing, when
    /// `waiter` is in the job already (its first registration stands, priority raised since included), so
    /// only the caller that got true may `leave`.
    func join(
        _ key: WorkKey, waiter: UInt64, priority: RequestPriority,
        progress: @escaping @Sendable (FetchProgress) -> Void, previews: PreviewRequest? = nil
    ) -> Bool {
        jobs.withLock { jobs in
            var job = jobs[key] ?? Job(ticket: SchedulerTicket(priority: priority))
            guard job.waiters[waiter] == nil else { return false }
            job.waiters[waiter] = Waiter(priority: priority, progress: progress, previews: previews)
            jobs[key] = job
            Self.applyHighestPriority(job)
            return true
        }
    }

    func leave(_ key: WorkKey, waiter: UInt64) {
        jobs.withLock { jobs in
            guard var job = jobs[key] else { return }
            job.waiters.removeValue(forKey: waiter)
            if job.waiters.isEmpty {
                jobs.removeValue(forKey: key)
            } else {
                jobs[key] = job
                Self.applyHighestPriority(job)
            }
        }
    }

    func ticket(for key: WorkKey) -> SchedulerTicket? {
        jobs.withLock { $0[key]?.ticket }
    }

    func setPriority(_ priority: RequestPriority, forKey key: WorkKey, waiter: UInt64) {
        jobs.withLock { jobs in
            guard jobs[key]?.waiters[waiter] != nil else { return }
            jobs[key]?.waiters[waiter]?.priority = priority
            if let job = jobs[key] { Self.applyHighestPriority(job) }
        }
    }

    /// Sends a progress event to every waiter of the job.
    func report(_ progress: FetchProgress, forKey key: WorkKey) {
        let handlers = jobs.withLock { $0[key]?.waiters.values.map(\.progress) ?? [] }
        for handler in handlers { handler(progress) }
    }

    /// Runs one fetch attempt; when a waiter wants previews as it starts, the body's pieces go to a new
    /// producer (a retry starts over), finished before this returns so that no preview follows the fetch.
    /// Waiters that join later and asked get the previews from then on; an attempt that started with no
    /// waiter asking makes none (keeping the pieces costs a copy of the body).
    func observingPreviews<Value: Sendable>(
        forKey key: WorkKey, _ request: FetchRequest,
        _ fetch: (FetchRequest) async throws -> Value
    ) async throws -> Value {
        let wish = jobs.withLock { $0[key]?.waiters.values.lazy.compactMap(\.previews).first }
        guard let wish else { return try await fetch(request) }
        let producer = PreviewProducer(
            interval: wish.interval, makeDecoder: wish.makeDecoder,
            deliver: { image in self.deliverPreview(image, forKey: key) })
        var request = request
        request.bodyObserver = { producer.receive($0) }
        do {
            let value = try await fetch(request)
            await producer.finish()
            return value
        } catch {
            await producer.finish()
            throw error
        }
    }

    /// Sends a preview to every waiter of the job that asked for previews.
    private func deliverPreview(_ image: Image, forKey key: WorkKey) {
        let handlers = jobs.withLock { $0[key]?.waiters.values.compactMap(\.previews?.deliver) ?? [] }
        for handler in handlers { handler(image) }
    }

    private static func applyHighestPriority(_ job: Job) {
        let highest = job.waiters.values.map(\.priority).max() ?? job.ticket.priority
        if highest != job.ticket.priority { job.ticket.setPriority(highest) }
    }
}
