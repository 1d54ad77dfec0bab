import Foundation
import Synchronization

/// The stores a `DiskCache` has accepted but not yet written, in arrival order, for one writer to drain.
/// A store of a key already waiting replaces it in place (the latest wins, one file write); once the
/// queued bytes reach the bound, a store waits until the writer frees room (back-pressure instead of
/// unbounded memory). Reads look here first, so a stored entry never misses while its write waits.
/// The queue only keeps the bookkeeping; the cache's writer does the file work.
final class WriteBehindQueue: Sendable {
    /// One accepted store.
    struct Write: Sendable {
        let key: String
        var data: Data
        var metadata: DiskEntryMetadata
    }

    private struct State {
        var pending: [String: Write] = [:]
        /// Keys in arrival order; a key no longer in `pending` (cancelled, or taken) is skipped.
        var order: [String] = []
        var head = 0
        /// The write the writer is doing now (at most one: there is one writer).
        var inFlight: Write?
        /// Bytes of `pending` and `inFlight`, what the bound limits.
        var bytes = 0
        /// Whether a writer is draining; the store that finds none starts one.
        var writerRunning = false
        /// Stores waiting for room; resumed with nil to try again whenever a write finishes or is cancelled.
        var roomWaiters: [CheckedContinuation<Bool?, Never>] = []
        /// `flush()` callers, resumed when the queue is empty and the writer has stopped.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        /// Callers waiting for the write in flight to finish (a removal must not race it); resumed with true
        /// to look again.
        var inFlightWaiters: [CheckedContinuation<Bool, Never>] = []

        var isIdle: Bool { pending.isEmpty && inFlight == nil && !writerRunning }

        mutating func takeNext() -> Write? {
            while head < order.count {
                let key = order[head]
                head += 1
                if let write = pending.removeValue(forKey: key) {
                    compactOrder()
                    return write
                }
            }
            order.removeAll(keepingCapacity: true)
            head = 0
            return nil
        }

        /// Drops the keys already passed once they are half of `order`, so it does not grow without end.
        private mutating func compactOrder() {
            if head > 64 && head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
        }
    }

    /// Most bytes queued (in flight included) before a store waits; one write larger than this is still
    /// accepted when nothing else is queued.
    let byteLimit: Int
    private let state = Mutex(State())

    init(byteLimit: Int) {
        self.byteLimit = byteLimit
    }

    /// Queues `write`, waiting first while the queue is full. Returns true when no writer is draining the
    /// queue: the caller must start one.
    func enqueue(_ write: Write) async -> Bool {
        while true {
            // Resumed at once with whether to start a writer, or later with nil (room freed: try again).
            let startsWriter: Bool? = await withCheckedContinuation { continuation in
                state.withLock { state in
                    if let queued = state.pending[write.key] {
                        state.bytes += write.data.count - queued.data.count
                        state.pending[write.key] = write
                        continuation.resume(returning: false)
                    } else if state.bytes > 0 && state.bytes + write.data.count > byteLimit {
                        state.roomWaiters.append(continuation)
                    } else {
                        state.pending[write.key] = write
                        state.order.append(write.key)
                        state.bytes += write.data.count
                        continuation.resume(returning: !state.writerRunning)
                        state.writerRunning = true
                    }
                }
            }
            if let startsWriter { return startsWriter }
        }
    }

    /// The next write for the writer, now in flight; nil when the queue is empty, and the writer stops.
    func next() -> Write? {
        let (write, idle) = state.withLock { state -> (Write?, [CheckedContinuation<Void, Never>]) in
            precondition(state.inFlight == nil, "one writer drains the queue")
            if let write = state.takeNext() {
                state.inFlight = write
                return (write, [])
            }
            state.writerRunning = false
            defer { state.idleWaiters = [] }
            return (nil, state.idleWaiters)
        }
        for waiter in idle { waiter.resume() }
        return write
    }

    /// The writer has written (or failed to write) the write `next()` gave it.
    func finishWrite() {
        let (room, inFlight) = state.withLock { state in
            if let done = state.inFlight { state.bytes -= done.data.count }
            state.inFlight = nil
            defer {
                state.roomWaiters = []
                state.inFlightWaiters = []
            }
            return (state.roomWaiters, state.inFlightWaiters)
        }
        for waiter in room { waiter.resume(returning: nil) }
        for waiter in inFlight { waiter.resume(returning: true) }
    }

    /// The store of `key` not yet on disk (waiting, or being written), if any.
    func queued(_ key: String) -> Write? {
        state.withLock { state in
            if let write = state.pending[key] { return write }
            if let write = state.inFlight, write.key == key { return write }
            return nil
        }
    }

    /// Nothing waits to be written and no writer runs.
    var isIdle: Bool { state.withLock { $0.isIdle } }

    /// Stores waiting for room now.
    var storesWaitingForRoom: Int {
        state.withLock { $0.roomWaiters.count }
    }

    /// Replaces the metadata of `key`'s waiting store; false when none waits (one in flight included).
    func updateMetadata(ofKey key: String, _ metadata: DiskEntryMetadata) -> Bool {
        state.withLock { state in
            guard state.pending[key] != nil else { return false }
            state.pending[key]?.metadata = metadata
            return true
        }
    }

    /// Drops `key`'s waiting store and waits until a write of it in flight has landed, so a removal that
    /// follows is not undone. Returns whether a waiting store was dropped.
    func cancel(_ key: String) async -> Bool {
        let (cancelled, room) = state.withLock { state -> (Bool, [CheckedContinuation<Bool?, Never>]) in
            guard let write = state.pending.removeValue(forKey: key) else { return (false, []) }
            state.bytes -= write.data.count
            defer { state.roomWaiters = [] }
            return (true, state.roomWaiters)
        }
        for waiter in room { waiter.resume(returning: nil) }
        await waitForInFlight { $0.key == key }
        return cancelled
    }

    /// Drops every waiting store and waits for the write in flight; returns the keys dropped.
    func cancelAll() async -> [String] {
        let (keys, room) = state.withLock { state -> ([String], [CheckedContinuation<Bool?, Never>]) in
            let keys = Array(state.pending.keys)
            for write in state.pending.values { state.bytes -= write.data.count }
            state.pending = [:]
            defer { state.roomWaiters = [] }
            return (keys, state.roomWaiters)
        }
        for waiter in room { waiter.resume(returning: nil) }
        await waitForInFlight { _ in true }
        return keys
    }

    /// Waits until a write of `key` in flight, if any, has landed.
    func waitForWrite(ofKey key: String) async {
        await waitForInFlight { $0.key == key }
    }

    /// Waits until no write matching `matches` is in flight.
    private func waitForInFlight(_ matches: @escaping @Sendable (Write) -> Bool) async {
        while true {
            let wasWaiting = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let busy = state.withLock { state -> Bool in
                    guard let write = state.inFlight, matches(write) else { return false }
                    state.inFlightWaiters.append(continuation)
                    return true
                }
                if !busy { continuation.resume(returning: false) }
            }
            if !wasWaiting { return }
        }
    }

    /// Waits until every store queued so far, and any queued meanwhile, is written (or failed).
    func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                if state.isIdle { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }
}
