/// Counters of a `MemoryCache`, read at one instant.
public struct MemoryCacheStats: Sendable, Equatable, Codable {
    public var hits = 0
    public var misses = 0
    public var evictions = 0
    public var totalCost = 0
    public var count = 0

    public init() {}
}
