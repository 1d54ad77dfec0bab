import Testing
import TroveCore
import TroveEviction
import TroveMemoryCache
import TroveTestSupport

/// A large cache is split into shards with their own locks; the limits still hold for the whole.
@Suite struct ShardingTests {
    @Test func shardOnlyWhileEveryShardHoldsEnough() {
        // Unbounded cost, 2,000 entries: 16 shards of 125.
        #expect(
            MemoryCache<Int, Int>(configuration: .init(costLimit: .max, countLimit: 2_000, maxEntryCostFraction: 1))
                .shardCount == 16)
        // 100 entries: 2 shards of 50 (4 would leave 25, under 32).
        #expect(
            MemoryCache<Int, Int>(configuration: .init(costLimit: .max, countLimit: 100, maxEntryCostFraction: 1))
                .shardCount == 2)
        // An entry may cost 10% of the limit: 8 shards of 12.5% still hold one.
        #expect(MemoryCache<Int, Int>(configuration: .init(costLimit: 1_000)).shardCount == 8)
        // An entry may cost the whole limit: one shard.
        #expect(
            MemoryCache<Int, Int>(configuration: .init(costLimit: 1 << 30, maxEntryCostFraction: 1)).shardCount == 1)
        #expect(MemoryCache<Int, Int>(configuration: .init(costLimit: 100, countLimit: 3)).shardCount == 1)
    }

    @Test func everyAdmittedEntryFitsItsShard() {
        let cache = MemoryCache<Int, Int>(configuration: .init(costLimit: 1_000))  // 8 shards of 125
        for key in 0..<200 { #expect(cache.setValue(key, forKey: key, cost: 100)) }
        let stats = cache.stats
        #expect(stats.totalCost <= 1_000)
        #expect(stats.count == stats.totalCost / 100)
        #expect(stats.evictions == 200 - stats.count)
    }

    @Test(arguments: ["lru", "s3fifo", "wtinylfu"])
    func concurrentStoresKeepTheWholeCountLimit(_ name: String) async throws {
        let factories: [any EvictionPolicyFactory] = [
            LRUPolicyFactory(), S3FIFOPolicyFactory(), WTinyLFUPolicyFactory()
        ]
        let factory = try #require(factories.first { $0.name == name })
        let cache = MemoryCache<Int, Int>(
            configuration: .init(costLimit: .max, countLimit: 512, maxEntryCostFraction: 1),
            evictionPolicy: factory)
        #expect(cache.shardCount == 16)
        let tasks = 8, operations = 4_000
        let (sets, gets, seenHits) = await withTaskGroup(of: (Int, Int, Int).self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var sets = 0, gets = 0, hits = 0
                    for i in 0..<operations {
                        let key = task * operations + i
                        cache.setValue(key, forKey: key, cost: 1); sets += 1
                        if let value = cache.value(forKey: key - i % 5) {
                            hits += 1
                            #expect(value == key - i % 5)  // never another key's value
                        }
                        gets += 1
                    }
                    return (sets, gets, hits)
                }
            }
            return await group.reduce((0, 0, 0)) { ($0.0 + $1.0, $0.1 + $1.1, $0.2 + $1.2) }
        }
        let stats = cache.stats
        // Thousands of fresh keys per shard: every shard is full, so the whole holds exactly the limit.
        #expect(stats.count == 512)
        #expect(stats.totalCost == 512)
        #expect(stats.evictions == sets - 512)
        #expect(stats.hits == seenHits)
        #expect(stats.hits + stats.misses == gets)
    }

    /// A Zipf(1.0) stream over `keys` keys, the same on every run.
    static func zipf(requests: Int, keys: Int, seed: UInt64) -> [Int] {
        var cumulative: [Double] = []
        var total = 0.0
        for rank in 1...keys {
            total += 1.0 / Double(rank)
            cumulative.append(total)
        }
        var generator = SplitMix64(seed: seed)
        return (0..<requests).map { _ in
            let target = Double(generator.next() >> 11) / Double(1 << 53) * total
            var low = 0, high = keys - 1
            while low < high {
                let middle = (low + high) / 2
                if cumulative[middle] < target { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }

    /// The hit ratio of cache-aside over `stream`.
    static func hitRatio(_ cache: MemoryCache<Int, Int>, _ stream: [Int]) -> Double {
        var hits = 0
        for key in stream {
            if cache.value(forKey: key) != nil { hits += 1 } else { cache.setValue(key, forKey: key, cost: 1) }
        }
        return Double(hits) / Double(stream.count)
    }

    /// Sixteen shards of 125 entries hit about as often as one policy over 2,000 (same capacity: a cost
    /// limit of 2,000 at cost 1 with whole-limit entries admitted keeps the second cache in one shard).
    @Test(arguments: ["lru", "s3fifo", "wtinylfu"])
    func shardingKeepsTheHitRatio(_ name: String) throws {
        let factories: [any EvictionPolicyFactory] = [
            LRUPolicyFactory(), S3FIFOPolicyFactory(), WTinyLFUPolicyFactory()
        ]
        let factory = try #require(factories.first { $0.name == name })
        let stream = Self.zipf(requests: 200_000, keys: 20_000, seed: 42)
        let sharded = MemoryCache<Int, Int>(
            configuration: .init(costLimit: .max, countLimit: 2_000, maxEntryCostFraction: 1),
            evictionPolicy: factory)
        let whole = MemoryCache<Int, Int>(
            configuration: .init(costLimit: 2_000, maxEntryCostFraction: 1),
            evictionPolicy: factory)
        #expect(sharded.shardCount == 16)
        #expect(whole.shardCount == 1)
        let shardedRatio = Self.hitRatio(sharded, stream), wholeRatio = Self.hitRatio(whole, stream)
        #expect(abs(shardedRatio - wholeRatio) <= 0.01, "16 shards \(shardedRatio), one \(wholeRatio)")
    }
}
