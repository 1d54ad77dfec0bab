import Testing
import TroveCore
import TroveMemoryCache

@Suite struct MemoryCacheTests {
    @Test func evictsLeastRecentlyUsedWhenOverCost() {
        let cache = MemoryCache<String, Int>(configuration: .init(costLimit: 100, maxEntryCostFraction: 1))
        cache.setValue(1, forKey: "a", cost: 40)
        cache.setValue(2, forKey: "b", cost: 40)
        #expect(cache.value(forKey: "a") == 1)  // a is now more recent than b
        cache.setValue(3, forKey: "c", cost: 40)
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.value(forKey: "a") == 1)
        #expect(cache.value(forKey: "c") == 3)
        let stats = cache.stats
        #expect(stats.evictions == 1)
        #expect(stats.totalCost == 80)
        #expect(stats.count == 2)
        #expect(stats.hits == 3)
        #expect(stats.misses == 1)
    }

    @Test func countLimitHolds() {
        let cache = MemoryCache<Int, Int>(configuration: .init(costLimit: 1_000, countLimit: 3, maxEntryCostFraction: 1))
        for key in 0..<10 { cache.setValue(key, forKey: key, cost: 1) }
        #expect(cache.stats.count == 3)
        #expect((7..<10).allSatisfy { cache.value(forKey: $0) == $0 })
    }

    @Test func oversizedEntryIsNotAdmittedAndDropsTheOldValue() {
        let cache = MemoryCache<String, String>(configuration: .init(costLimit: 1_000))  // 10% = 100
        #expect(cache.setValue("small", forKey: "k", cost: 100))
        #expect(!cache.setValue("huge", forKey: "k", cost: 101))
        #expect(cache.value(forKey: "k") == nil)
        #expect(cache.stats.totalCost == 0)
    }

    @Test func replacingAKeyAdjustsCost() {
        let cache = MemoryCache<String, Int>(configuration: .init(costLimit: 100, maxEntryCostFraction: 1))
        cache.setValue(1, forKey: "k", cost: 30)
        cache.setValue(2, forKey: "k", cost: 50)
        #expect(cache.stats.totalCost == 50)
        #expect(cache.removeValue(forKey: "k") == 2)
        #expect(cache.stats.totalCost == 0)
        cache.setValue(3, forKey: "x", cost: 10)
        cache.removeAll()
        #expect(cache.stats.count == 0)
        #expect(cache.value(forKey: "x") == nil)
    }

    /// Limits hold after every random operation.
    @Test func limitsHoldUnderRandomOperations() {
        let cache = MemoryCache<Int, Int>(configuration: .init(costLimit: 500, countLimit: 20, maxEntryCostFraction: 0.5))
        var rng = SystemRandomNumberGenerator()
        for step in 0..<5_000 {
            let key = Int.random(in: 0..<60, using: &rng)
            switch step % 5 {
            case 0, 1, 2: cache.setValue(step, forKey: key, cost: Int.random(in: 0...300, using: &rng))
            case 3: _ = cache.value(forKey: key)
            default: cache.removeValue(forKey: key)
            }
            let stats = cache.stats
            #expect(stats.totalCost <= 500)
            #expect(stats.count <= 20)
        }
    }

    @Test func concurrentHammeringKeepsCountsConsistent() async {
        let cache = MemoryCache<Int, Int>(configuration: .init(costLimit: 64, maxEntryCostFraction: 1))
        let tasks = 8, operations = 3_000
        // Every set uses a fresh key, so each one either still sits in the cache or was evicted.
        let (sets, gets) = await withTaskGroup(of: (Int, Int).self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var sets = 0, gets = 0
                    for i in 0..<operations {
                        let key = task * operations + i
                        if i % 3 == 0 {
                            cache.setValue(i, forKey: key, cost: 1); sets += 1
                        } else {
                            _ = cache.value(forKey: key - i % 3 - (i % 7) * 3); gets += 1
                        }
                    }
                    return (sets, gets)
                }
            }
            return await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
        let stats = cache.stats
        #expect(stats.hits + stats.misses == gets)
        #expect(stats.hits > 0)
        #expect(stats.count == 64)
        #expect(stats.totalCost == 64)
        #expect(stats.evictions == sets - stats.count)
    }
}
