import Testing
import TroveCore
import TroveEviction
import TroveMemoryCache
import TroveTestSupport

/// `trim(toFraction:)`: down to a fraction of the limits, expired entries first, then in the policy's order.
@Suite struct TrimTests {
    @Test func trimmingToHalfEvictsTheLeastRecentlyUsedUntilHalfTheCostRemains() {
        let cache = MemoryCache<Int, Int>(configuration: .init(costLimit: 1_000, maxEntryCostFraction: 1))
        for key in 0..<10 { cache.setValue(key, forKey: key, cost: 100) }
        #expect(cache.value(forKey: 0) == 0)  // 0 is now the most recent
        #expect(cache.trim(toFraction: 0.5) == 5)
        #expect(cache.stats.totalCost == 500)
        #expect(cache.stats.evictions == 5)
        #expect((1...5).allSatisfy { cache.value(forKey: $0) == nil })
        #expect([0, 6, 7, 8, 9].allSatisfy { cache.value(forKey: $0) == $0 })
        // Already within the target: nothing more goes.
        #expect(cache.trim(toFraction: 0.5) == 0)
        #expect(cache.trim(toFraction: 0) == 5)
        #expect(cache.stats.count == 0)
    }

    @Test func theCountLimitIsTrimmedToTheSameFraction() {
        let cache = MemoryCache<Int, Int>(
            configuration: .init(costLimit: 1_000_000, countLimit: 8, maxEntryCostFraction: 1))
        for key in 0..<8 { cache.setValue(key, forKey: key, cost: 1) }
        #expect(cache.trim(toFraction: 0.25) == 6)
        #expect(cache.stats.count == 2)
        #expect(cache.value(forKey: 6) == 6 && cache.value(forKey: 7) == 7)
    }

    @Test func expiredEntriesGoFirstAndCountAsExpirations() {
        let clock = ManualClock()
        let cache = MemoryCache<Int, Int>(
            configuration: .init(costLimit: 1_000, maxEntryCostFraction: 1), evictionPolicy: LRUPolicyFactory(),
            clock: clock)
        cache.setValue(1, forKey: 1, cost: 300, ttl: .seconds(1))
        cache.setValue(2, forKey: 2, cost: 300)
        cache.setValue(3, forKey: 3, cost: 300)
        clock.advance(by: .seconds(2))
        // Expiring 1 leaves 600, within 0.6 of the limit: the live entries stay.
        #expect(cache.trim(toFraction: 0.6) == 1)
        #expect(cache.stats.expirations == 1 && cache.stats.evictions == 0)
        #expect(cache.value(forKey: 2) == 2 && cache.value(forKey: 3) == 3)
    }

    @Test(arguments: [-1.0, .nan])
    func aFractionBelowZeroOrNotANumberEmptiesTheCache(fraction: Double) {
        let cache = MemoryCache<Int, Int>(configuration: .init(costLimit: 100, maxEntryCostFraction: 1))
        cache.setValue(1, forKey: 1, cost: 10)
        #expect(cache.trim(toFraction: fraction) == 1)
        #expect(cache.stats.count == 0)
    }
}
