import Synchronization

/// Holds requests at the server until a test opens it, so a test can keep fetches "in flight" for as long
/// as it needs without timing anything, and can wait until a given number of requests have arrived.
public final class FixtureGate: Sendable {
    private struct State {
        var isOpen: Bool
        var arrivals = 0
        var held: [CheckedContinuation<Void, Never>] = []
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Mutex<State>

    /// A gate that holds requests until `open()`, or lets them through from the start when `open`.
    public init(open: Bool = false) {
        state = Mutex(State(isOpen: open))
    }

    /// Requests that reached the gate so far (held or let through).
    public var arrivals: Int { state.withLock { $0.arrivals } }
    /// Requests waiting at the gate now.
    public var waiting: Int { state.withLock { $0.held.count } }

    /// Lets every held request through, and every later one without stopping.
    public func open() {
        let held = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.held = [] }
            return state.held
        }
        for continuation in held { continuation.resume() }
    }

    /// Returns once at least `count` requests have arrived at the gate.
    public func waitForArrivals(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                guard state.arrivals < count else { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Called by the server for a request on a gated route; returns when the gate is open.
    func pass() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (isOpen, reached) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                state.arrivals += 1
                let arrivals = state.arrivals
                let reached = state.watchers.filter { $0.count <= arrivals }.map(\.continuation)
                state.watchers.removeAll { $0.count <= arrivals }
                if !state.isOpen { state.held.append(continuation) }
                return (state.isOpen, reached)
            }
            for watcher in reached { watcher.resume() }
            if isOpen { continuation.resume() }
        }
    }
}
