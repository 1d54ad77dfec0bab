import Foundation
import TroveMemoryCache

/// When and how far a pipeline's memory cache gives memory back on its own. A pipeline polls a
/// `MemoryPressureSource` every `pollInterval` (a task it owns, ended with it) and, on pressure, trims its
/// memory cache to `lowWaterFraction` of its limits. The disk cache is never touched.
public struct MemoryPressureOptions: Sendable {
    /// Whether the pipeline watches at all (default true). Where the default source has nothing to read
    /// (no cgroup v2, no container limit), no polling starts.
    public var isEnabled = true
    /// Time between polls (default 2 s): low, as reading a few small files is all a poll does.
    public var pollInterval: Duration = .seconds(2)
    /// What the memory cache is trimmed to under pressure, as a fraction (0...1) of its cost and count
    /// limits (default 0.5).
    public var lowWaterFraction = 0.5
    /// The default source's resident-memory signal: pressure when the process's resident memory passes this
    /// fraction (0...1) of the container's limit (default 0.9); nil turns it off.
    public var residentFraction: Double? = 0.9
    /// The default source's PSI signal: pressure when tasks stalled on memory for more than this percentage
    /// of the last 10 s (`memory.pressure` `some avg10`; default 10); nil turns it off.
    public var stallThreshold: Double? = 10
    /// Where pressure is read; nil (the default) reads the process's cgroup (`CgroupMemoryPressure`, with
    /// `residentFraction` and `stallThreshold`).
    public var source: (any MemoryPressureSource)?

    /// The defaults: on, every 2 s, down to half, resident memory over 90% of the limit or a 10% stall.
    public init() {}

    /// The source to poll, or nil when there is nothing to watch.
    func resolvedSource() -> (any MemoryPressureSource)? {
        guard isEnabled else { return nil }
        if let source { return source }
        let cgroup = CgroupMemoryPressure(residentFraction: residentFraction, stallThreshold: stallThreshold)
        return cgroup.isAvailable ? cgroup : nil
    }
}
