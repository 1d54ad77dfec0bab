import Synchronization

/// Work a pipeline finishes after its caller has the answer (writes of placeholders into cache entries),
/// tracked so `ImagePipeline.flush()` can wait for it.
final class BackgroundWrites: Sendable {
    private let tasks = Mutex<[UInt64: Task<Void, Never>]>([:])
    private let next = Atomic<UInt64>(0)
    /// Results being written to the shared tier now, each holding its bytes until the tier answers.
    private let sharedResults = Atomic<Int>(0)
    /// The most shared-result writes at once: a slow tier holds at most this many results in memory.
    static let maxSharedResults = 64

    /// Counts a shared-result write about to start; false (and nothing counted) when `maxSharedResults`
    /// are in flight already.
    func admitSharedResult() -> Bool {
        guard sharedResults.add(1, ordering: .relaxed).newValue > Self.maxSharedResults else { return true }
        sharedResults.subtract(1, ordering: .relaxed)
        return false
    }

    /// Ends a write `admitSharedResult` counted.
    func endSharedResult() {
        sharedResults.subtract(1, ordering: .relaxed)
    }

    /// Starts `work`; it is forgotten once done.
    func run(_ work: @escaping @Sendable () async -> Void) {
        let id = next.add(1, ordering: .relaxed).newValue
        // Inserted under the lock the finished task takes to remove itself, so it can never be left behind.
        tasks.withLock { tasks in
            tasks[id] = Task {
                await work()
                self.tasks.withLock { _ = $0.removeValue(forKey: id) }
            }
        }
    }

    /// Waits for every piece of work started before the call.
    func wait() async {
        for task in tasks.withLock({ Array($0.values) }) { await task.value }
    }
}
