import Dispatch
import Foundation
import Synchronization
import TroveCore

/// Threads of their own for the long, synchronous work on a large source (decode, transforms, encode), off
/// Swift's cooperative pool: two 24 MP decodes on two cores would otherwise hold every cooperative thread, and
/// nothing else (a deadline's timer, a cache hit, a 504) could run until they end. A caller that is cancelled
/// (a request past its deadline) is answered at once with `CancellationError`; its work finishes on its thread
/// and the result is dropped (`abandoned` counts those).
package final class DecodeThreads: Sendable {
    /// One set for the process: the threads are a machine's, not a pipeline's.
    package static let shared = DecodeThreads()

    /// Stored pixels from which a source's work moves here (smaller work costs less than the hop).
    package static let largeSourcePixels = 4_000_000

    /// A concurrent queue on Dispatch's global threads (not the cooperative pool's), as many at once as cores.
    private let queue = DispatchQueue(label: "trove.decode", qos: .userInitiated, attributes: .concurrent)
    private let abandonedCount = Atomic<Int>(0)
    private static let marker = DispatchSpecificKey<Bool>()

    private init() {
        queue.setSpecific(key: Self.marker, value: true)
    }

    /// Whether the caller runs on one of these threads.
    package static var isCurrent: Bool { DispatchQueue.getSpecific(key: marker) == true }

    /// Work whose caller was cancelled before it finished.
    package var abandoned: Int { abandonedCount.load(ordering: .relaxed) }

    /// Runs `work` on one of the threads and returns what it returned; throws `CancellationError` as soon as
    /// the calling task is cancelled, leaving the work to finish on its own.
    package func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let waiter = Waiter<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiter.set(continuation)
                if Task.isCancelled {
                    waiter.answer(.failure(CancellationError()))
                    return
                }
                queue.async {
                    if !waiter.answer(Result { try work() }) { self.abandonedCount.add(1, ordering: .relaxed) }
                }
            }
        } onCancel: {
            waiter.answer(.failure(CancellationError()))
        }
    }

    /// The caller's continuation, resumed once: by the work's outcome or by the cancellation, whichever
    /// comes first. Its state sits behind a lock.
    private final class Waiter<T: Sendable>: Sendable {
        private let state = Mutex<(continuation: CheckedContinuation<T, any Error>?, answered: Bool)>((nil, false))

        func set(_ continuation: CheckedContinuation<T, any Error>) {
            state.withLock { $0.continuation = continuation }
        }

        /// Resumes the continuation with `outcome` unless it was resumed before; false when it was (or when
        /// it was not set yet, for a cancellation that came first: the closure then checks `isCancelled`).
        @discardableResult
        func answer(_ outcome: Result<T, any Error>) -> Bool {
            let continuation = state.withLock { state -> CheckedContinuation<T, any Error>? in
                guard !state.answered, let continuation = state.continuation else { return nil }
                state.answered = true
                return continuation
            }
            continuation?.resume(with: outcome)
            return continuation != nil
        }
    }

    /// Whether work on a source with this header belongs here: a still of at least `largeSourcePixels`, or an
    /// animation whose frames add up to it. Not without a header.
    static func takes(_ header: ImageInfo?) -> Bool {
        guard let info = header else { return false }
        let (pixels, overflow) = info.width.multipliedReportingOverflow(by: info.height)
        let (total, overflow2) = pixels.multipliedReportingOverflow(by: max(1, info.frameCount))
        return overflow || overflow2 || total >= largeSourcePixels
    }
}
