/// When a whole request must be done by, retries included, and the budget it was set from (for messages).
public struct RequestDeadline: Sendable, Equatable {
    /// The instant the request gives up.
    package let end: ContinuousClock.Instant
    /// How long the request was given.
    package let budget: Duration

    /// A deadline `budget` from now.
    package init(budget: Duration, from start: ContinuousClock.Instant = .now) {
        self.budget = budget
        self.end = start + budget
    }

    /// Time left; zero or less once it has passed.
    public var remaining: Duration { end - .now }
}
