/// How a pipeline uses its shared tier beyond the tier's own options: the fleet-wide lease taken before
/// going to the origin, how waiters poll for the holder's value, and the circuit breaker that stops a dead
/// server from being asked on every request.
public struct SharedTierPolicy: Sendable, Equatable {
    /// How long a lease lasts; a holder that dies loses it after this, and a waiter fetches on its own after
    /// twice this (the dead holder's lease, then its successor's fetch). Nil: the fetch timeout plus 5 s.
    public var leaseTTL: Duration?
    /// The first wait between polls of a key another process holds the lease on; doubled after each poll.
    public var firstPollInterval: Duration
    /// The longest wait between two polls.
    public var maxPollInterval: Duration
    /// Consecutive failures (unreachable, timed out, refusing) after which the breaker opens.
    public var failureThreshold: Int
    /// How long an open breaker skips the tier before one request probes it again.
    public var cooldown: Duration
    /// At most one "shared tier unavailable" warning in the log per this interval (the rest are counted).
    public var warningInterval: Duration
    /// Whether processed results are kept in the shared tier too, under their processed key (default true):
    /// read before a result is made, made under the key's lease by one process in the fleet, and stored
    /// behind the answer. False keeps only originals (and placeholders) there.
    public var sharesResults: Bool
    /// How long the lease on a result being made lasts (default 5 s). A process that dies while making a
    /// result (the crash a crash guard marks happens there) holds up the fleet's requests for it this long
    /// at most; one that takes longer lets the next waiter make it too, so the work is done twice, never
    /// lost. Shorter than `leaseTTL`, which covers a fetch.
    public var resultLeaseTTL: Duration

    /// The defaults: leases of the fetch timeout plus 5 s, polls from 5 ms doubling to 100 ms, the breaker
    /// open after 3 failures in a row for 5 s, a warning at most every 10 s, results shared under 5 s leases.
    public init(
        leaseTTL: Duration? = nil, firstPollInterval: Duration = .milliseconds(5),
        maxPollInterval: Duration = .milliseconds(100), failureThreshold: Int = 3,
        cooldown: Duration = .seconds(5), warningInterval: Duration = .seconds(10), sharesResults: Bool = true,
        resultLeaseTTL: Duration = .seconds(5)
    ) {
        self.sharesResults = sharesResults
        self.resultLeaseTTL = resultLeaseTTL
        self.leaseTTL = leaseTTL
        self.firstPollInterval = firstPollInterval
        self.maxPollInterval = maxPollInterval
        self.failureThreshold = failureThreshold
        self.cooldown = cooldown
        self.warningInterval = warningInterval
    }
}
