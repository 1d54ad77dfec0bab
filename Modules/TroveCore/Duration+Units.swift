import Foundation

extension Duration {
    /// The duration in seconds as a `TimeInterval`, for arithmetic with `Date`.
    package var timeInterval: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds (truncated), clamped to `Int64`'s range: for Dispatch's waits and
    /// metrics' timers, which count in nanoseconds.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let scaled = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let sum = scaled.partialValue.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !scaled.overflow, !sum.overflow else { return seconds < 0 ? .min : .max }
        return sum.partialValue
    }
}
