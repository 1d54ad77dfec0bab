import Synchronization

/// At most `limit` pieces of work at once, with a queue of at most `queueLimit` waiting; past that,
/// `admit` fails at once with `AdmissionGate.Full` (the server answers 429), so nobody waits forever.
///
/// Work is named by a key: requests for a key already running or waiting join it without taking a
/// slot or a queue place, since the pipeline coalesces them into that one piece of work anyway. A slot
/// is held until the last request for its key has left.
final class AdmissionGate: Sendable {
    /// Every slot is busy and the queue is full.
    struct Full: Error {}

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        /// Keys holding a slot, with how many requests ride on each.
        var running: [String: Int] = [:]
        /// Keys waiting for a slot, oldest first, and the requests waiting on each.
        var queue: [String] = []
        var waiters: [String: [Waiter]] = [:]
        var nextID: UInt64 = 0
    }

    let limit: Int
    let queueLimit: Int
    private let state = Mutex(State())

    init(limit: Int, queueLimit: Int) {
        self.limit = max(1, limit)
        self.queueLimit = max(0, queueLimit)
    }

    /// Running work and waiting keys, for metrics and tests.
    var counts: (running: Int, queued: Int) { state.withLock { ($0.running.count, $0.queue.count) } }

    /// Runs `body` once a slot for `key` is held; throws `Full` at once when none can be had or queued.
    func withAdmission<T: Sendable>(for key: String, _ body: () async throws -> T) async throws -> T {
        try await admit(key)
        defer { release(key) }
        return try await body()
    }

    private enum Decision { case go, wait, full }

    /// Takes a slot (or rides on the key's) when it can; otherwise says whether the request may queue.
    private static func enter(_ key: String, limit: Int, queueLimit: Int, _ state: inout State) -> Decision {
        if let riders = state.running[key] {
            state.running[key] = riders + 1
            return .go
        }
        if state.running.count < limit {
            state.running[key] = 1
            return .go
        }
        return state.waiters[key] != nil || state.queue.count < queueLimit ? .wait : .full
    }

    private func admit(_ key: String) async throws {
        let (limit, queueLimit) = (limit, queueLimit)
        let (decision, id) = state.withLock { state -> (Decision, UInt64) in
            state.nextID += 1
            return (Self.enter(key, limit: limit, queueLimit: queueLimit, &state), state.nextID)
        }
        switch decision {
        case .go: return
        case .full: throw Full()
        case .wait: break
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Decided again under the lock that also queues the waiter, so no slot can pass it by.
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    switch Self.enter(key, limit: limit, queueLimit: queueLimit, &state) {
                    case .go: return .success(())
                    case .full: return .failure(Full())
                    case .wait:
                        if state.waiters[key] == nil { state.queue.append(key) }
                        state.waiters[key, default: []].append(Waiter(id: id, continuation: continuation))
                        return nil
                    }
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters[key]?.firstIndex(where: { $0.id == id }) else { return nil }
                let waiter = state.waiters[key]?.remove(at: index)
                Self.dropQueuedKeyIfEmpty(key, in: &state)
                return waiter
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    private static func dropQueuedKeyIfEmpty(_ key: String, in state: inout State) {
        guard state.waiters[key]?.isEmpty == true else { return }
        state.waiters[key] = nil
        state.queue.removeAll { $0 == key }
    }

    private func release(_ key: String) {
        let woken = state.withLock { state -> [Waiter] in
            guard let riders = state.running[key] else { return [] }
            if riders > 1 {
                state.running[key] = riders - 1
                return []
            }
            state.running[key] = nil
            // The slot passes to the oldest waiting key with everyone waiting on it.
            while !state.queue.isEmpty {
                let next = state.queue.removeFirst()
                let waiters = state.waiters.removeValue(forKey: next) ?? []
                guard !waiters.isEmpty else { continue }
                state.running[next] = waiters.count
                return waiters
            }
            return []
        }
        for waiter in woken { waiter.continuation.resume() }
    }
}
