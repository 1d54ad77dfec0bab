import Foundation
import Synchronization
import TroveCore

/// Limits how many fetches run at once, overall and per host, and decides which waiting fetch goes next:
/// higher priority first, then FIFO or LIFO by arrival. A host at its cap never holds up other hosts.
package final class FetchScheduler: Sendable {
    /// The limits and queue order it was made with.
    package let configuration: FetchSchedulerConfiguration

    private struct Entry {
        let host: String
        var priority: RequestPriority
        let ticket: SchedulerTicket
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// The waiters of one host, one arrival-ordered queue per priority.
    private struct HostQueue {
        var byPriority = [SortedIDQueue](repeating: SortedIDQueue(), count: RequestPriority.allCases.count)

        var isEmpty: Bool { byPriority.allSatisfy(\.isEmpty) }
    }

    private struct State {
        var running = 0
        var runningPerHost: [String: Int] = [:]
        var queues: [String: HostQueue] = [:]
        var entries: [UInt64: Entry] = [:]
        var lastID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A scheduler with these limits (6 at once, 6 per host, FIFO by default).
    package init(configuration: FetchSchedulerConfiguration = .init()) {
        self.configuration = configuration
    }

    /// Fetches running now.
    package var runningCount: Int { state.withLock { $0.running } }
    /// Fetches waiting for a slot.
    package var queuedCount: Int { state.withLock { $0.entries.count } }

    /// The per-host key for a URL: lowercased host plus the port when one is given.
    package static func hostKey(for url: URL) -> String {
        let host = url.host?.lowercased() ?? ""
        return url.port.map { "\(host):\($0)" } ?? host
    }

    /// Waits for a slot (higher priority first; within a priority FIFO or LIFO; the per-host cap is respected
    /// without blocking other hosts), runs `work`, and frees the slot however `work` ends.
    /// Cancelling while queued removes the entry at once and throws `TroveError.cancelled`; cancelling while
    /// running cancels `work` (it runs in the caller's task).
    package func run<T: Sendable>(
        host: String, ticket: SchedulerTicket = SchedulerTicket(),
        _ work: @Sendable () async throws -> T
    ) async throws -> T {
        try await acquire(host: host, ticket: ticket)
        defer { release(host: host) }
        // A waiter cancelled just as it was handed a slot still gets the slot; do not start work for it.
        guard !Task.isCancelled else { throw TroveError.cancelled }
        return try await work()
    }

    // MARK: - Slots

    private func acquire(host: String, ticket: SchedulerTicket) async throws {
        if Task.isCancelled { throw TroveError.cancelled }
        if state.withLock({ takeSlotIfFree(host: host, in: &$0) }) { return }

        let id = state.withLock { state -> UInt64 in
            state.lastID += 1
            return state.lastID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Decision { case run, cancelled, queued }
                let decision = state.withLock { state -> Decision in
                    // The cancellation handler may already have run and found nothing to remove.
                    if Task.isCancelled { return .cancelled }
                    if takeSlotIfFree(host: host, in: &state) { return .run }
                    let priority = ticket.register(self, entryID: id)
                    state.entries[id] = Entry(
                        host: host, priority: priority, ticket: ticket,
                        continuation: continuation)
                    state.queues[host, default: HostQueue()].byPriority[priority.rawValue].insert(id)
                    return .queued
                }
                switch decision {
                case .run: continuation.resume()
                case .cancelled: continuation.resume(throwing: TroveError.cancelled)
                case .queued: break
                }
            }
        } onCancel: {
            let continuation = state.withLock { state in removeQueued(id, from: &state)?.continuation }
            continuation?.resume(throwing: TroveError.cancelled)
        }
    }

    private func release(host: String) {
        let started = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.running -= 1
            let remaining = (state.runningPerHost[host] ?? 1) - 1
            state.runningPerHost[host] = remaining > 0 ? remaining : nil
            var started: [CheckedContinuation<Void, any Error>] = []
            while let id = nextEligible(in: state), let entry = removeQueued(id, from: &state) {
                state.running += 1
                state.runningPerHost[entry.host, default: 0] += 1
                started.append(entry.continuation)
            }
            return started
        }
        for continuation in started { continuation.resume() }
    }

    private func takeSlotIfFree(host: String, in state: inout State) -> Bool {
        guard state.running < configuration.maxConcurrent,
            state.runningPerHost[host, default: 0] < configuration.maxPerHost
        else { return false }
        state.running += 1
        state.runningPerHost[host, default: 0] += 1
        return true
    }

    /// The best waiter whose host has room: highest priority, then oldest (FIFO) or newest (LIFO).
    private func nextEligible(in state: State) -> UInt64? {
        guard state.running < configuration.maxConcurrent else { return nil }
        var best: (priority: Int, id: UInt64)?
        for (host, queue) in state.queues where state.runningPerHost[host, default: 0] < configuration.maxPerHost {
            guard let priority = queue.byPriority.lastIndex(where: { !$0.isEmpty }),
                let id = configuration.order == .fifo
                    ? queue.byPriority[priority].first
                    : queue.byPriority[priority].last
            else { continue }
            if let current = best {
                let newer = configuration.order == .lifo
                guard
                    priority > current.priority
                        || (priority == current.priority && (newer ? id > current.id : id < current.id))
                else { continue }
            }
            best = (priority, id)
        }
        return best?.id
    }

    private func removeQueued(_ id: UInt64, from state: inout State) -> Entry? {
        guard let entry = state.entries.removeValue(forKey: id) else { return nil }
        state.queues[entry.host]?.byPriority[entry.priority.rawValue].remove(id)
        if state.queues[entry.host]?.isEmpty == true { state.queues[entry.host] = nil }
        entry.ticket.unregister(self, entryID: id)
        return entry
    }

    /// Called by a ticket after its priority changed: moves the entry to its new priority's queue, keeping
    /// its place by arrival.
    func priorityChanged(entryID id: UInt64) {
        state.withLock { state in
            guard var entry = state.entries[id] else { return }
            let priority = entry.ticket.priority
            guard priority != entry.priority else { return }
            state.queues[entry.host]?.byPriority[entry.priority.rawValue].remove(id)
            state.queues[entry.host]?.byPriority[priority.rawValue].insert(id)
            entry.priority = priority
            state.entries[id] = entry
        }
    }
}
