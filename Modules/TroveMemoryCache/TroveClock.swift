/// Where the memory cache reads the time for expiry, so tests can drive it (TroveTestSupport has a
/// manual one). Only differences between readings matter; the origin is arbitrary.
public protocol TroveClock: Sendable {
    /// The time since the clock's arbitrary origin.
    func now() -> Duration
}

/// The monotonic system clock: immune to wall-clock changes, so a TTL never jumps.
@usableFromInline package struct SystemClock: TroveClock {
    private static let origin = ContinuousClock.now

    /// The system clock; every instance reads the same origin.
    @usableFromInline package init() {}

    /// The time since the first reading in this process.
    @usableFromInline package func now() -> Duration { ContinuousClock.now - Self.origin }
}
