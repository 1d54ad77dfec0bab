import Synchronization

/// Where caches read the time for expiry, so tests can drive it. Only differences between readings
/// matter; the origin is arbitrary.
public protocol TroveClock: Sendable {
    func now() -> Duration
}

/// The monotonic system clock: immune to wall-clock changes, so a TTL never jumps.
public struct SystemClock: TroveClock {
    private static let origin = ContinuousClock.now

    public init() {}

    public func now() -> Duration { ContinuousClock.now - Self.origin }
}

/// A clock that moves only when told to, for tests of expiry.
public final class ManualClock: TroveClock {
    private let current: Mutex<Duration>

    public init(start: Duration = .zero) { current = Mutex(start) }

    public func now() -> Duration { current.withLock { $0 } }

    public func advance(by interval: Duration) {
        current.withLock { $0 += interval }
    }
}
