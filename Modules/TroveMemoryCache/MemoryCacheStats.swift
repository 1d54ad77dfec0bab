/// Counters of a `MemoryCache`, read at one instant.
public struct MemoryCacheStats: Sendable, Equatable, Codable {
    /// Lookups that found a live entry.
    public var hits = 0
    /// Lookups that found nothing, or only an expired entry.
    public var misses = 0
    /// Entries dropped to stay within the limits.
    public var evictions = 0
    /// Entries dropped because their TTL ran out (on lookup or in a sweep).
    public var expirations = 0
    /// The summed cost of the entries held now, in the caller's cost units (bytes, for the pipeline's images).
    public var totalCost = 0
    /// Entries held now.
    public var count = 0

    /// Every counter at zero.
    package init() {}
}
