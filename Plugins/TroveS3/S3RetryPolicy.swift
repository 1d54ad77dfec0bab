/// How failed S3 requests are retried: `SlowDown`, other 5xx and lost connections are tried again after an
/// exponential backoff with random jitter (so many clients throttled together do not return together), as
/// long as the wait ends before the caller's deadline.
package struct S3RetryPolicy: Sendable, Equatable {
    /// Tries in all, the first included (1 means never retry).
    package var maxAttempts: Int
    /// The wait before the first retry.
    package var baseDelay: Duration
    /// No wait is longer.
    package var maxDelay: Duration
    /// Fraction of each wait that is random, 0...1: the wait is drawn from `[delay × (1 − jitter), delay]`.
    package var jitter: Double

    /// Out-of-range values are clamped: at least one attempt, delays at least 0, jitter within 0...1.
    package init(
        maxAttempts: Int = 4, baseDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(5),
        jitter: Double = 0.5
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(.zero, baseDelay)
        self.maxDelay = max(.zero, maxDelay)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// Try once.
    package static let none = S3RetryPolicy(maxAttempts: 1)

    /// The wait after failed attempt `attempt` (0-based): `baseDelay` doubled per attempt up to `maxDelay`,
    /// less up to `jitter` of it, chosen by `random` in 0...1.
    package func delay(afterAttempt attempt: Int, random: Double) -> Duration {
        var delay = baseDelay
        var doublings = 0
        // Stop doubling at the cap, so a large attempt number cannot overflow.
        while doublings < attempt, delay < maxDelay {
            delay *= 2
            doublings += 1
        }
        return min(delay, maxDelay) * (1 - jitter * min(max(random, 0), 1))
    }
}
