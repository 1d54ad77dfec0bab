import Synchronization

/// Streamed entries whose payload is written and whose commit (header, rename into place) runs in the
/// background: what `DiskEntryWriter.commit` hands over. Anything that reads or changes a key waits here
/// for that key's commit first, so it sees the entry and a later store is never overtaken by it; `flush()`
/// waits for all of them.
final class PendingCommits: Sendable {
    private struct State {
        /// Keys whose commit runs (one at a time per key: a second waits for the first before it starts).
        var running: Set<String> = []
        var keyWaiters: [String: [CheckedContinuation<Void, Never>]] = [:]
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Waits until no commit of `key` runs, then registers one; call `finish(key)` when it is done.
    func start(_ key: String) async {
        while !state.withLock({ $0.running.insert(key).inserted }) {
            await wait(for: key)
        }
    }

    /// The commit of `key` has landed or failed.
    func finish(_ key: String) {
        let (waiters, idle) = state.withLock { state in
            state.running.remove(key)
            let waiters = state.keyWaiters.removeValue(forKey: key) ?? []
            guard state.running.isEmpty else { return (waiters, [CheckedContinuation<Void, Never>]()) }
            defer { state.idleWaiters = [] }
            return (waiters, state.idleWaiters)
        }
        for waiter in waiters { waiter.resume() }
        for waiter in idle { waiter.resume() }
    }

    /// Whether a commit of `key` runs now: the read path's cheap check before it would wait.
    func isRunning(_ key: String) -> Bool {
        state.withLock { !$0.running.isEmpty && $0.running.contains(key) }
    }

    /// No commit runs.
    var isIdle: Bool { state.withLock { $0.running.isEmpty } }

    /// Returns once no commit of `key` runs.
    func wait(for key: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let busy = state.withLock { state -> Bool in
                guard state.running.contains(key) else { return false }
                state.keyWaiters[key, default: []].append(continuation)
                return true
            }
            if !busy { continuation.resume() }
        }
    }

    /// Returns once no commit runs at all.
    func waitForAll() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let busy = state.withLock { state -> Bool in
                guard !state.running.isEmpty else { return false }
                state.idleWaiters.append(continuation)
                return true
            }
            if !busy { continuation.resume() }
        }
    }
}
