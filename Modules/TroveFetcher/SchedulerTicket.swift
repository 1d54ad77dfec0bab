import Synchronization
import TroveCore

/// A queued request's handle: its priority may change while it waits, and the scheduler it waits in
/// re-sorts it at once (e.g. a cell scrolled back into view raises its image to `.high`).
package final class SchedulerTicket: Sendable {
    /// A queue entry this ticket is waiting as, so a priority change can find it.
    private struct Wait {
        let scheduler: FetchScheduler
        let entryID: UInt64
    }

    private struct State {
        var priority: RequestPriority
        var waits: [Wait] = []
    }

    private let state: Mutex<State>

    /// A ticket at this priority, not yet waiting.
    package init(priority: RequestPriority = .normal) {
        state = Mutex(State(priority: priority))
    }

    /// The priority the ticket waits at now.
    package var priority: RequestPriority { state.withLock { $0.priority } }

    /// Changes the priority, moving any waiting fetch to its new place in the queue.
    package func setPriority(_ priority: RequestPriority) {
        let waits = state.withLock { state -> [Wait] in
            guard state.priority != priority else { return [] }
            state.priority = priority
            return state.waits
        }
        // Outside the ticket's lock: the scheduler takes its own lock, then reads this ticket's priority.
        for wait in waits { wait.scheduler.priorityChanged(entryID: wait.entryID) }
    }

    /// Records a queue entry and returns the priority it starts with, in one step so no change is lost.
    func register(_ scheduler: FetchScheduler, entryID: UInt64) -> RequestPriority {
        state.withLock { state in
            state.waits.append(Wait(scheduler: scheduler, entryID: entryID))
            return state.priority
        }
    }

    func unregister(_ scheduler: FetchScheduler, entryID: UInt64) {
        state.withLock { state in
            state.waits.removeAll { $0.entryID == entryID && $0.scheduler === scheduler }
        }
    }
}
