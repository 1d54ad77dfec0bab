import Foundation
import ServiceLifecycle
import Synchronization

/// A task executor that runs the jobs enqueued on it in bursts, every few milliseconds, on a thread of its own.
///
/// swift-otel's tracer hands every span's start and end through `AsyncStream`s to tasks of its own, and its
/// batch processor hands every ended span on again. On the cooperative pool each hand-off wakes a sleeping
/// thread, which costs more CPU than the span itself: about 50 µs a span on a 2-core machine, four times a
/// whole result-cache hit. Here a hand-off only appends to a queue; nothing wakes until the next tick, which
/// runs every job queued by then, and those they queue in turn. The tracer's work is not urgent (its batches
/// leave every few seconds), so a tick of a few milliseconds costs it nothing that matters.
package final class TickingTaskExecutor: TaskExecutor {
    /// The process's one: its thread runs for the process's life, so a job queued late is never stranded.
    package static let shared = TickingTaskExecutor(tickMicroseconds: 5_000)

    private let queued = Mutex<[UnownedJob]>([])
    private let thread = Mutex<pthread_t?>(nil)

    /// Whether the caller runs on this executor's thread.
    package var isCurrent: Bool {
        thread.withLock { $0 }.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    private init(tickMicroseconds: UInt32) {
        let ticker = Thread { [self] in
            thread.withLock { $0 = pthread_self() }
            while true {
                usleep(tickMicroseconds)
                runQueued()
            }
        }
        ticker.name = "trove-telemetry"
        ticker.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queued.withLock { $0.append(job) }
    }

    /// Runs what is queued, then what that queued, until nothing is.
    private func runQueued() {
        while true {
            let jobs = queued.withLock { queued -> [UnownedJob] in
                defer { queued.removeAll(keepingCapacity: true) }
                return queued
            }
            if jobs.isEmpty { return }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}

/// Runs a service with its tasks preferring `TickingTaskExecutor.shared`: the span exporter's services,
/// whose tasks would otherwise wake a thread once per span.
struct OnTelemetryTicks: Service {
    let service: any Service

    func run() async throws {
        try await withTaskExecutorPreference(TickingTaskExecutor.shared) { try await service.run() }
    }
}
