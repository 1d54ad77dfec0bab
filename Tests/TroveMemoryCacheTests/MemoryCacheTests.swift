import Testing
import TroveCore
import TroveEviction
import TroveMemoryCache
import TroveTestSupport

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
        let cache = MemoryCache<Int, Int>(
            configuration: .init(costLimit: 1_000, countLimit: 3, maxEntryCostFraction: 1))
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

    static let policies: [any EvictionPolicyFactory] = [
        LRUPolicyFactory(), FIFOPolicyFactory(), LFUPolicyFactory(), SIEVEPolicyFactory(),
        S3FIFOPolicyFactory(), WTinyLFUPolicyFactory()
    ]

    /// Limits hold after every random operation, under every policy; the counters add up.
    @Test(arguments: policies.map(\.name))
    func limitsHoldUnderRandomOperations(_ name: String) throws {
        let factory = try #require(Self.policies.first { $0.name == name })
        let clock = ManualClock()
        let cache = MemoryCache<Int, Int>(
            configuration: .init(costLimit: 500, countLimit: 20, maxEntryCostFraction: 0.5),
            evictionPolicy: factory, clock: clock)
        var generator = SplitMix64(seed: 5)
        var gets = 0, stored = 0, refused = 0, removed = 0
        for step in 0..<5_000 {
            let key = Int(generator.next() % 60)
            switch generator.next() % 6 {
            case 0, 1:
                let cost = Int(generator.next() % 300)
                let ttl: Duration? = generator.next() % 4 == 0 ? .seconds(Int(generator.next() % 5) + 1) : nil
                let accepted = cache.setValue(step, forKey: key, cost: cost, ttl: ttl)
                // Room is made before storing, so exactly the entries within the admission limit get in.
                #expect(accepted == (cost <= 250))
                if accepted { stored += 1 } else { refused += 1 }
            case 2, 3:
                _ = cache.value(forKey: key); gets += 1
            case 4:
                if cache.removeValue(forKey: key) != nil { removed += 1 }
            default:
                clock.advance(by: .seconds(1))
            }
            let stats = cache.stats
            #expect(stats.totalCost <= 500)
            #expect(stats.count <= 20)
        }
        let stats = cache.stats
        #expect(refused > 0 && stored > 0)
        #expect(stats.hits > 0)
        #expect(stats.hits + stats.misses == gets)
        // Every stored entry is still there, or was replaced, removed, evicted or expired.
        #expect(stats.count <= stored - removed - stats.evictions - stats.expirations)
    }

    @Test(arguments: policies.map(\.name))
    func concurrentHammeringKeepsCountsConsistent(_ name: String) async throws {
        let factory = try #require(Self.policies.first { $0.name == name })
        let cache = MemoryCache<Int, Int>(
            configuration: .init(costLimit: 64, maxEntryCostFraction: 1),
            evictionPolicy: factory)
        let tasks = 8, operations = 3_000
        // Every set uses a fresh key, so each one either still sits in the cache or was evicted.
        let (sets, gets, seenHits) = await withTaskGroup(of: (Int, Int, Int).self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var sets = 0, gets = 0, hits = 0
                    for i in 0..<operations {
                        let key = task * operations + i
                        if i % 3 == 0 {
                            cache.setValue(i, forKey: key, cost: 1); sets += 1
                        } else {
                            let wanted = key - i % 3 - (i % 7) * 3
                            if let value = cache.value(forKey: wanted) {
                                hits += 1
                                #expect(value == wanted % operations)  // never another key's value
                            }
                            gets += 1
                        }
                    }
                    return (sets, gets, hits)
                }
            }
            return await group.reduce((0, 0, 0)) { ($0.0 + $1.0, $0.1 + $1.1, $0.2 + $1.2) }
        }
        let stats = cache.stats
        #expect(stats.hits == seenHits)
        #expect(stats.hits + stats.misses == gets)
        #expect(stats.hits > 0)
        #expect(stats.count == 64)
        #expect(stats.totalCost == 64)
        #expect(stats.evictions == sets - stats.count)
    }
}
