import Foundation
import Synchronization
import Tracing
import TroveCore
import TroveFetcher

/// A running job as its work sees it: the waiters it answers, whose progress and previews it reports, and the
/// priority it runs at, the highest any of them asks for. Work that waits on deeper work joins it as
/// `asWaiter()`: the deeper job then reports through this one, and follows its priority as it changes.
package final class JobHandle: Sendable {
    private struct State {
        var waiters: [UInt64: JobWaiter] = [:]
        /// Deeper jobs this one waits on, told when its priority changes.
        var followers: [@Sendable (RequestPriority) -> Void] = []
        /// The decode this job's work runs while the source it waits on arrives, when it has one.
        var streamedDecode: StreamedPlanarDecode?
    }

    /// The job's identity as a waiter of deeper work.
    let id = JobWaiter.nextID()
    /// The priority it runs at; what its fetch waits at in the scheduler.
    let ticket: SchedulerTicket
    /// The span its work runs under, when tracing: its first waiter's (the request that started it, or the
    /// job above). The work's spans are its children; a waiter that joins later links to it.
    let span: (any Span)?
    private let state: Mutex<State>

    /// A job for one caller alone: the first waiter of a new job, or a caller whose fetch runs outside any.
    init(_ first: JobWaiter) {
        ticket = SchedulerTicket(priority: first.priority)
        span = first.span
        state = Mutex(State(waiters: [first.id: first]))
        follow(first)
    }

    /// Admits a waiter; false, changing nothing, when it is here already (its first registration stands,
    /// and only the call that got true may `remove` it).
    func add(_ waiter: JobWaiter) -> Bool {
        let added = state.withLock { state in
            guard state.waiters[waiter.id] == nil else { return false }
            state.waiters[waiter.id] = waiter
            return true
        }
        if added {
            applyHighestPriority()
            follow(waiter)
        }
        return added
    }

    /// A waiter that is a job has this one follow its priority (read again once followed, so a change made
    /// while it joined is not lost).
    private func follow(_ waiter: JobWaiter) {
        guard let upstream = waiter.job else { return }
        // Weak: this job holds the one above as a waiter, so a strong follower would keep both alive forever.
        upstream.onPriorityChange { [weak self, id = waiter.id] priority in self?.setPriority(priority, waiter: id) }
        setPriority(upstream.ticket.priority, waiter: waiter.id)
    }

    func remove(_ waiter: UInt64) {
        state.withLock { _ = $0.waiters.removeValue(forKey: waiter) }
        applyHighestPriority()
    }

    /// Changes one waiter's say in the priority.
    func setPriority(_ priority: RequestPriority, waiter: UInt64) {
        let changed = state.withLock { state in
            guard state.waiters[waiter] != nil else { return false }
            state.waiters[waiter]?.priority = priority
            return true
        }
        if changed { applyHighestPriority() }
    }

    /// Calls `follower` with each new priority, for as long as the job runs.
    func onPriorityChange(_ follower: @escaping @Sendable (RequestPriority) -> Void) {
        state.withLock { $0.followers.append(follower) }
    }

    /// Lets go of the waiters and followers once the job has answered them: nothing reaches them after.
    func finish() {
        state.withLock { state in
            state.waiters = [:]
            state.followers = []
        }
    }

    /// Sends a progress event to every waiter.
    func report(_ progress: FetchProgress) {
        for waiter in waiters { waiter.progress(progress) }
    }

    /// The job as a waiter of the deeper work it waits on.
    func asWaiter() -> JobWaiter {
        JobWaiter(id: id, priority: ticket.priority, url: nil, progress: { self.report($0) }, job: self, span: span)
    }

    /// Previews as the first waiter that wants them asks (the interval, the decoder), delivered to every
    /// waiter that wants them; nil when none does.
    var previewWish: PreviewRequest? {
        guard let wish = waiters.lazy.compactMap(\.previewWish).first else { return nil }
        return PreviewRequest(
            interval: wish.interval, makeDecoder: wish.makeDecoder, deliver: { self.deliverPreview($0) })
    }

    func deliverPreview(_ image: Image) {
        for waiter in waiters { waiter.deliver(image) }
    }

    /// The decode this job's work runs while its source arrives: the fetch it waits on feeds it the body.
    var streamedDecode: StreamedPlanarDecode? {
        get { state.withLock { $0.streamedDecode } }
        set { state.withLock { $0.streamedDecode = newValue } }
    }

    /// Runs one fetch attempt, handing the body's pieces to whoever watches it as it arrives: a new preview
    /// producer when a waiter wants previews as it starts (a retry starts over), finished before this returns
    /// so that no preview follows the fetch, and the streamed decodes of the waiting jobs (each told the
    /// attempt began). Waiters that join later and asked get the previews from then on, and no piece for
    /// their decode; an attempt nobody watches hands over no pieces (keeping them costs a copy of the body).
    func observingBody<Value: Sendable>(
        _ request: FetchRequest, _ fetch: (FetchRequest) async throws -> Value
    ) async throws -> Value {
        let decodes = waiters.compactMap { $0.job?.streamedDecode }
        let wish = previewWish
        guard wish != nil || !decodes.isEmpty else { return try await fetch(request) }
        let producer = wish.map {
            PreviewProducer(interval: $0.interval, makeDecoder: $0.makeDecoder, deliver: $0.deliver)
        }
        for decode in decodes { decode.beginAttempt() }
        var request = request
        request.bodyObserver = { piece in
            producer?.receive(piece)
            for decode in decodes { decode.receive(piece) }
        }
        do {
            let value = try await fetch(request)
            await producer?.finish()
            return value
        } catch {
            await producer?.finish()
            throw error
        }
    }

    /// Copied out, so no waiter's handler runs under the lock.
    private var waiters: [JobWaiter] { state.withLock { Array($0.waiters.values) } }

    /// Under the lock, so two changes at once cannot land out of order; the ticket's and the followers' locks
    /// are only ever taken inside it (jobs wait on deeper jobs, never the other way).
    private func applyHighestPriority() {
        state.withLock { state in
            guard let highest = state.waiters.values.map(\.priority).max(), highest != ticket.priority else { return }
            ticket.setPriority(highest)
            for follower in state.followers { follower(highest) }
        }
    }
}
