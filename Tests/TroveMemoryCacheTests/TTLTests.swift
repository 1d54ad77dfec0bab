import Testing
import TroveCore
import TroveMemoryCache
import TroveTestSupport

/// Expiry, driven by a clock the test moves.
@Suite struct TTLTests {
    @Test func perEntryTTLExpiresOnTheDotAndCountsAsAMiss() {
        let clock = ManualClock()
        let cache = MemoryCache<String, Int>(
            configuration: .init(costLimit: 100, maxEntryCostFraction: 1), clock: clock)
        cache.setValue(1, forKey: "short", cost: 10, ttl: .seconds(5))
        cache.setValue(2, forKey: "forever", cost: 10)
        clock.advance(by: .milliseconds(4_999))
        #expect(cache.value(forKey: "short") == 1)
        clock.advance(by: .milliseconds(1))
        #expect(cache.value(forKey: "short") == nil)
        #expect(cache.value(forKey: "forever") == 2)
        let stats = cache.stats
        #expect(stats.hits == 2)
        #expect(stats.misses == 1)
        #expect(stats.expirations == 1)
        #expect(stats.count == 1)
        #expect(stats.totalCost == 10)
    }

    @Test func defaultTTLAppliesUnlessAnEntryNamesItsOwn() {
        let clock = ManualClock()
        let cache = MemoryCache<String, Int>(
            configuration: .init(costLimit: 100, maxEntryCostFraction: 1, defaultTTL: .seconds(10)), clock: clock)
        cache.setValue(1, forKey: "default", cost: 1)
        cache.setValue(2, forKey: "long", cost: 1, ttl: .seconds(60))
        clock.advance(by: .seconds(10))
        #expect(cache.value(forKey: "default") == nil)
        #expect(cache.value(forKey: "long") == 2)
        clock.advance(by: .seconds(50))
        #expect(cache.value(forKey: "long") == nil)
        #expect(cache.stats.expirations == 2)
    }

    @Test func replacingAnEntryRestartsItsTTL() {
        let clock = ManualClock()
        let cache = MemoryCache<String, Int>(
            configuration: .init(costLimit: 100, maxEntryCostFraction: 1), clock: clock)
        cache.setValue(1, forKey: "k", cost: 1, ttl: .seconds(5))
        clock.advance(by: .seconds(4))
        cache.setValue(2, forKey: "k", cost: 1, ttl: .seconds(5))
        clock.advance(by: .seconds(4))
        #expect(cache.value(forKey: "k") == 2)
        clock.advance(by: .seconds(1))
        #expect(cache.value(forKey: "k") == nil)
    }

    @Test func removeExpiredSweepsWithoutLookups() {
        let clock = ManualClock()
        let cache = MemoryCache<Int, Int>(configuration: .init(costLimit: 1_000, maxEntryCostFraction: 1), clock: clock)
        for key in 0..<10 { cache.setValue(key, forKey: key, cost: 5, ttl: .seconds(key < 6 ? 1 : 100)) }
        clock.advance(by: .seconds(1))
        #expect(cache.removeExpired() == 6)
        let stats = cache.stats
        #expect(stats.count == 4)
        #expect(stats.totalCost == 20)
        #expect(stats.expirations == 6)
        #expect(stats.misses == 0)
        #expect((6..<10).allSatisfy { cache.value(forKey: $0) == $0 })
    }

    /// Expired entries leave on stores too, so their cost does not push live entries out.
    @Test func storesSweepExpiredEntriesBeforeEvictingLiveOnes() {
        let clock = ManualClock()
        let cache = MemoryCache<Int, Int>(configuration: .init(costLimit: 10, maxEntryCostFraction: 1), clock: clock)
        for key in 0..<5 { cache.setValue(key, forKey: key, cost: 1, ttl: .seconds(1)) }
        for key in 5..<10 { cache.setValue(key, forKey: key, cost: 1) }
        clock.advance(by: .seconds(2))
        cache.setValue(10, forKey: 10, cost: 5)
        let stats = cache.stats
        #expect(stats.evictions == 0)
        #expect(stats.expirations == 5)
        #expect(stats.count == 6)
        #expect((5...10).allSatisfy { cache.value(forKey: $0) == $0 })
    }
}
