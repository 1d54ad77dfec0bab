import Foundation

/// Bounds of a `MemoryCache`.
public struct MemoryCacheConfiguration: Sendable, Equatable {
    /// Total cost (bytes) the cache may hold.
    public var costLimit: Int
    /// Number of entries the cache may hold.
    public var countLimit: Int
    /// An entry costing more than this fraction of `costLimit` is not admitted: one huge image
    /// should not flush everything else.
    public var maxEntryCostFraction: Double
    /// How long an entry stays valid when `setValue` names no TTL; nil keeps entries until evicted.
    public var defaultTTL: Duration?

    /// Bounds with the given values; the defaults are `defaultCostLimit`, no count limit, 10% of `costLimit`
    /// for one entry, and no TTL.
    public init(
        costLimit: Int = MemoryCacheConfiguration.defaultCostLimit, countLimit: Int = .max,
        maxEntryCostFraction: Double = 0.1, defaultTTL: Duration? = nil
    ) {
        self.costLimit = costLimit
        self.countLimit = countLimit
        self.maxEntryCostFraction = maxEntryCostFraction
        self.defaultTTL = defaultTTL
    }

    /// 20% of physical memory, or of the container's memory limit when that is lower, capped at 512 MiB.
    public static var defaultCostLimit: Int {
        let physical = Int(ProcessInfo.processInfo.physicalMemory)
        let available = min(physical, ContainerMemoryLimit.bytes() ?? physical)
        return min(available / 5, 512 << 20)
    }

    /// Whether an entry of `cost` may be stored at all.
    @usableFromInline
    func admits(cost: Int) -> Bool {
        cost <= costLimit && Double(cost) <= Double(costLimit) * maxEntryCostFraction && countLimit > 0
    }
}
