import Dispatch
import Foundation
import Synchronization
import TroveCore

/// Calls actions at their deadlines from one thread the process shares, so a wait with a deadline costs a
/// registration under a lock, not a sleeping task and a timer of its own (a task and a thread wake per
/// request). The thread starts with the first deadline and sleeps while none is pending. A cancelled
/// action does not re-arm the thread: it wakes at the time it last chose, finds nothing due and sleeps until
/// the next live deadline, so a steady load wakes it about once per deadline's length.
final class DeadlineTimer: Sendable {
    /// One timer for the process.
    static let shared = DeadlineTimer()

    /// A scheduled action, to cancel it once the wait it bounds has ended.
    struct Ticket: Sendable {
        fileprivate let id: UInt64
    }

    private struct Entry {
        let instant: ContinuousClock.Instant
        let action: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        /// When the thread wakes next; nil while it sleeps until signalled (or has not started).
        var wakeAt: ContinuousClock.Instant?
        var started = false
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    /// Runs `action` on the timer's thread once `instant` has passed, unless cancelled first. Actions run one
    /// after another, so each must be quick (resume a continuation, cancel a task): a slow one delays the
    /// rest.
    func schedule(at instant: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> Ticket {
        let (ticket, start, signal) = state.withLock { state -> (Ticket, Bool, Bool) in
            state.nextID += 1
            state.entries[state.nextID] = Entry(instant: instant, action: action)
            let sooner = state.wakeAt.map { instant < $0 } ?? true
            if sooner { state.wakeAt = instant }
            defer { state.started = true }
            return (Ticket(id: state.nextID), !state.started, sooner && state.started)
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "trove-deadlines"
            thread.start()
        }
        // A signal the thread does not need only makes it look once more.
        if signal { wake.signal() }
        return ticket
    }

    /// Forgets a ticket's action. One the thread has already taken to run may still run once after this
    /// returns, so an action must do nothing harmful late (find its waiter gone, say). Cancelling one that
    /// ran or was cancelled does nothing.
    func cancel(_ ticket: Ticket) {
        _ = state.withLock { $0.entries.removeValue(forKey: ticket.id) }
    }

    /// Number of actions waiting (for tests).
    var pendingCount: Int { state.withLock { $0.entries.count } }

    private func run() {
        while true {
            let (due, next) = state.withLock { state -> ([@Sendable () -> Void], ContinuousClock.Instant?) in
                let now = ContinuousClock.now
                var due: [UInt64] = []
                var next: ContinuousClock.Instant?
                for (id, entry) in state.entries {
                    if entry.instant <= now {
                        due.append(id)
                    } else if next.map({ entry.instant < $0 }) ?? true {
                        next = entry.instant
                    }
                }
                state.wakeAt = next
                // Removed after the walk, so the dictionary is not copied while it is being read.
                let actions = due.compactMap { state.entries.removeValue(forKey: $0)?.action }
                return (actions, next)
            }
            for action in due { action() }
            if let next {
                _ = wake.wait(timeout: .now() + Self.dispatchInterval(next - .now))
            } else {
                wake.wait()
            }
        }
    }

    /// `duration` as Dispatch's interval: at least zero, at most a day (waking early only makes it look again).
    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        if duration <= .zero { return .nanoseconds(0) }
        if duration >= .seconds(86_400) { return .seconds(86_400) }
        return .nanoseconds(Int(duration.nanoseconds))
    }
}
