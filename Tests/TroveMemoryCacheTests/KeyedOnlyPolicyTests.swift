import Testing
import TroveCore
import TroveMemoryCache

/// A plugin's factory that only knows the keyed protocol still drives the memory cache.
@Suite struct KeyedOnlyPolicyTests {
    /// Most recently stored first out: nothing built in does this, so the order proves it was used.
    final class StackPolicy<Key: Hashable>: EvictionPolicy {
        private var stack: [Key] = []
        var count: Int { stack.count }
        func insert(_ key: Key, cost: Int) { stack.append(key) }
        func access(_ key: Key) {}
        func remove(_ key: Key) { stack.removeAll { $0 == key } }
        func evict() -> Key? { stack.popLast() }
        func removeAll() { stack.removeAll() }
    }

    struct StackFactory: EvictionPolicyFactory {
        let name = "stack"
        func make<Key: Hashable>(capacity: Int, keyType: Key.Type) -> any EvictionPolicy<Key> { StackPolicy<Key>() }
    }

    @Test func cacheUsesTheKeyedPolicyThroughSlots() {
        let cache = MemoryCache<String, Int>(
            configuration: .init(costLimit: 3, maxEntryCostFraction: 1),
            evictionPolicy: StackFactory())
        for (index, key) in ["a", "b", "c", "d"].enumerated() { cache.setValue(index, forKey: key, cost: 1) }
        // d needed room: the newest, c, went.
        #expect(cache.value(forKey: "c") == nil)
        #expect(cache.value(forKey: "a") == 0)
        #expect(cache.value(forKey: "b") == 1)
        #expect(cache.value(forKey: "d") == 3)
        cache.removeValue(forKey: "d")
        cache.setValue(9, forKey: "e", cost: 1)
        cache.setValue(10, forKey: "f", cost: 1)  // evicts e, now the newest
        #expect(cache.value(forKey: "e") == nil)
        #expect(cache.stats.evictions == 2)
    }
}
