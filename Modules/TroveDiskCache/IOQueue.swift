import Dispatch

/// Runs blocking file work on a dedicated concurrent dispatch queue, so it never occupies a thread of
/// Swift's cooperative pool, and hands the result back to async callers.
struct IOQueue: Sendable {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .utility, attributes: .concurrent)
    }

    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result(catching: work)) }
        }
    }

    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }

    /// Fire and forget (the open-time sweep and scan).
    func background(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }
}
