import Synchronization

/// Where a shared tier's circuit breaker stands.
public enum SharedTierBreakerState: String, Sendable, Codable {
    /// The tier is asked.
    case closed
    /// The tier failed `failureThreshold` times in a row and is skipped until the cooldown passes.
    case open
    /// The cooldown passed; one request is probing the tier.
    case halfOpen = "half-open"
}

/// Consecutive failures open it; while open every call is skipped; after the cooldown one call probes,
/// and its success closes the breaker (its failure opens it for another cooldown).
final class CircuitBreaker: Sendable {
    private struct State {
        var consecutiveFailures = 0
        var openedAt: ContinuousClock.Instant?
        var probeStartedAt: ContinuousClock.Instant?
    }

    private let threshold: Int
    private let cooldown: Duration
    private let state = Mutex(State())

    init(failureThreshold: Int, cooldown: Duration) {
        threshold = max(1, failureThreshold)
        self.cooldown = cooldown
    }

    var current: SharedTierBreakerState {
        state.withLock { state in
            guard state.openedAt != nil else { return .closed }
            return state.probeStartedAt == nil ? .open : .halfOpen
        }
    }

    /// Whether a call may go to the tier now; true for the single probe once an open breaker's cooldown passed.
    func allowsCall(now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            guard let openedAt = state.openedAt else { return true }
            guard now - openedAt >= cooldown else { return false }
            // A probe that never reported (its task vanished) does not hold the breaker half-open for ever.
            if let probe = state.probeStartedAt, now - probe < cooldown { return false }
            state.probeStartedAt = now
            return true
        }
    }

    /// The tier answered. Returns true when this closed an open breaker.
    @discardableResult
    func recordSuccess() -> Bool {
        state.withLock { state in
            let wasOpen = state.openedAt != nil
            state = State()
            return wasOpen
        }
    }

    /// The tier could not answer. Returns true when this opened the breaker.
    @discardableResult
    func recordFailure(now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            if state.openedAt != nil {
                // A failed probe: closed again for another cooldown.
                state.openedAt = now
                state.probeStartedAt = nil
                return false
            }
            state.consecutiveFailures += 1
            guard state.consecutiveFailures >= threshold else { return false }
            state.openedAt = now
            return true
        }
    }
}
