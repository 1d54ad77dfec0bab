import Synchronization
import TroveMemoryCache

/// A clock that moves only when told to, for tests of expiry.
public final class ManualClock: TroveClock {
    private let current: Mutex<Duration>

    /// A clock reading `start` until advanced.
    public init(start: Duration = .zero) { current = Mutex(start) }

    /// The current reading.
    public func now() -> Duration { current.withLock { $0 } }

    /// Moves the clock forward by `interval`.
    public func advance(by interval: Duration) {
        current.withLock { $0 += interval }
    }
}
