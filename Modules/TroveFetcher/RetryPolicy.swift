import TroveCore

/// How transient failures are retried: exponential backoff from `baseDelay`, doubled each attempt, capped
/// at `maxDelay`, with random jitter so many clients that failed together do not retry together.
public struct RetryPolicy: Sendable, Equatable {
    /// Retries after the first attempt (0 means try once).
    public var maxRetries: Int
    /// The wait before the first retry.
    public var baseDelay: Duration
    /// No wait is longer, including one a server asked for with Retry-After.
    public var maxDelay: Duration
    /// Fraction of each wait that is random, 0...1: the wait is drawn from `[delay × (1 − jitter), delay]`.
    public var jitter: Double

    /// Out-of-range values are clamped: retries and delays to at least 0, jitter to 0...1.
    public init(
        maxRetries: Int = 2, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(10),
        jitter: Double = 0.5
    ) {
        self.maxRetries = max(0, maxRetries)
        self.baseDelay = max(.zero, baseDelay)
        self.maxDelay = max(.zero, maxDelay)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// Never retry.
    public static let none = RetryPolicy(maxRetries: 0)

    /// Whether retrying could help: timeouts, failed or lost connections, a body cut short, 5xx, 408 and 429.
    /// Never 404, 410 or other 4xx, cancellation, a body over the limit, redirect loops or undecodable data.
    package static func isTransient(_ error: any Error) -> Bool {
        guard let error = error as? TroveError else { return false }
        switch error {
        case .timedOut, .connectionFailed, .lengthMismatch, .serverBusy:
            return true
        case let .httpStatus(status, _):
            return status >= 500 || status == 408 || status == 429
        default:
            return false
        }
    }

    /// Whether the failure of attempt `attempt` (0-based) is retried after waiting `delay`, with `remaining`
    /// left before the request's deadline (nil: no deadline). A retry must be able to finish in time: an
    /// idle timeout is retried only when a whole idle timeout still fits after the wait, any other transient
    /// failure only when the wait ends before the deadline. So with a 15 s idle timeout and a 20 s deadline
    /// a stalled origin is tried once and fails after 15 s.
    package func shouldRetry(
        _ error: any Error, afterAttempt attempt: Int, delay: Duration, remaining: Duration?
    ) -> Bool {
        guard attempt < maxRetries, Self.isTransient(error) else { return false }
        guard let remaining else { return true }
        if case let .timedOut(_, idleTimeout) = error as? TroveError {
            return delay + idleTimeout <= remaining
        }
        return delay < remaining
    }

    /// The wait before retry number `attempt + 1` after `error`: the server's Retry-After when it gave one
    /// (capped at `maxDelay`, no jitter: it said when), else the jittered exponential backoff.
    package func delay(afterAttempt attempt: Int, error: any Error) -> Duration {
        if case let .serverBusy(_, _, retryAfter) = error as? TroveError {
            return min(max(retryAfter, .zero), maxDelay)
        }
        return backoff(afterAttempt: attempt, random: Double.random(in: 0...1))
    }

    /// The exponential backoff for `attempt` (0-based), with `random` in 0...1 choosing within the jitter band.
    package func backoff(afterAttempt attempt: Int, random: Double) -> Duration {
        // Double the delay per attempt, stopping once past the cap so huge attempt numbers cannot overflow.
        var delay = baseDelay
        var doublings = 0
        while doublings < attempt, delay < maxDelay {
            delay *= 2
            doublings += 1
        }
        let capped = min(delay, maxDelay)
        return capped * (1 - jitter * min(max(random, 0), 1))
    }
}
