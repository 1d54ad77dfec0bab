import Foundation
import Synchronization
import TroveCore

/// The requests a pipeline is running, by URL, so that `cancel(url:)` and `cancelAll()` can reach them.
/// Each request registers how to cancel itself and leaves when it ends; work shared with requests for
/// other URLs carries on for them, as with any cancellation.
final class InFlightRequests: Sendable {
    private struct Entry {
        let url: URL
        let cancel: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        /// Requests that ended before they were added (a task can finish before `add` runs).
        var ended: Set<UInt64> = []
    }

    private let state = Mutex(State())

    /// Requests running now.
    var count: Int { state.withLock { $0.entries.count } }

    /// Registers request `id` for `url`; `cancel` stops it.
    func add(_ id: UInt64, url: URL, cancel: @escaping @Sendable () -> Void) {
        state.withLock { state in
            if state.ended.remove(id) == nil { state.entries[id] = Entry(url: url, cancel: cancel) }
        }
    }

    /// Request `id` has ended.
    func remove(_ id: UInt64) {
        state.withLock { state in
            if state.entries.removeValue(forKey: id) == nil { state.ended.insert(id) }
        }
    }

    /// Runs `body` as a cancellable request for `url`: in its own task, which the caller's cancellation
    /// and `cancel(url:)` both stop. The task starts on the caller's thread and runs there until it first
    /// suspends, so a miss still reaches its fetch without waiting for a pool thread.
    func run<T: Sendable>(url: URL, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let id = WaiterID.next()
        let task = Task.immediate {
            defer { self.remove(id) }
            return try await body()
        }
        add(id, url: url) { task.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch is CancellationError {
            // A check for cancellation deep in the work says it in the pipeline's own words.
            throw TroveError.cancelled
        }
    }

    /// Cancels every running request for `url`, compared as cache keys spell URLs (`CacheKey.normalized`, so
    /// `HTTP://Host:80/a` reaches `http://host/a`): normalised here, as cancelling is rare and adding is not.
    /// Returns how many.
    @discardableResult
    func cancel(url: URL) -> Int {
        let normalized = CacheKey.normalized(url)
        return cancel { CacheKey.normalized($0.url) == normalized }
    }

    /// Cancels every running request; returns how many.
    @discardableResult
    func cancelAll() -> Int {
        cancel { _ in true }
    }

    private func cancel(where matches: (Entry) -> Bool) -> Int {
        // Cancelled outside the lock: a cancellation handler may run at once and call `remove`.
        let chosen = state.withLock { state in state.entries.values.filter(matches) }
        for entry in chosen { entry.cancel() }
        return chosen.count
    }
}
