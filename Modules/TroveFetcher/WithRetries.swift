import TroveCore

/// Runs `operation`, retrying transient failures (`RetryPolicy.isTransient`) up to `policy.maxRetries`
/// times with backoff; any other failure, or the last one, is thrown as is. `attempt` counts from 0.
/// `onRetry` is told each failure about to be retried and the wait chosen (for logs and metrics).
/// Cancellation during a wait ends it at once with `TroveError.cancelled`. With a `deadline`, no retry
/// runs past it (`RetryPolicy.shouldRetry`): the failure that would have been retried is thrown instead.
package func withRetries<T: Sendable>(
    _ policy: RetryPolicy,
    deadline: RequestDeadline? = nil,
    onRetry: @Sendable (_ attempt: Int, _ error: any Error, _ delay: Duration) -> Void = { _, _, _ in },
    _ operation: @Sendable (_ attempt: Int) async throws -> T
) async throws -> T {
    var attempt = 0
    while true {
        do {
            return try await operation(attempt)
        } catch {
            guard attempt < policy.maxRetries, RetryPolicy.isTransient(error) else { throw error }
            // A cancelled task can make a fetch fail in ways that look transient; never retry those.
            guard !Task.isCancelled else { throw TroveError.cancelled }
            let delay = policy.delay(afterAttempt: attempt, error: error)
            guard policy.shouldRetry(error, afterAttempt: attempt, delay: delay, remaining: deadline?.remaining)
            else { throw error }
            onRetry(attempt, error, delay)
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw TroveError.cancelled
            }
            attempt += 1
        }
    }
}
