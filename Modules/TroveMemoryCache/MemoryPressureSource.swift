/// Why memory is short, as a `MemoryPressureSource` saw it at one poll.
public struct MemoryPressure: Sendable, Equatable, CustomStringConvertible {
    /// What was seen (`description`).
    package var reason: String

    /// Pressure for `reason`.
    public init(reason: String) {
        self.reason = reason
    }

    /// What was seen, for logs: "memory.events high rose from 3 to 5", "resident 900 MiB of a 1 GiB limit".
    public var description: String { reason }
}

/// Tells a pipeline when its process is short of memory, so its memory cache can give some back before the
/// kernel reclaims it by force (an OOM kill in a container). A pipeline polls it every
/// `MemoryPressureOptions.pollInterval` and trims its memory cache to the low-water mark when it answers.
/// `CgroupMemoryPressure` is the built-in one; tests and apps with their own signal pass another.
public protocol MemoryPressureSource: Sendable {
    /// Pressure now, or since the previous call for signals that count events; nil when there is none.
    /// Called from one task at a time, every poll: it must be quick and must not block for long.
    func currentPressure() -> MemoryPressure?
}
