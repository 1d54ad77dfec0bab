import Testing
import TroveCore
import TroveEviction
import TroveTestSupport

@Suite struct LRUPolicyTests {
    @Test func evictsLeastRecentlyUsedFirst() {
        let lru = LRUPolicy<String>()
        for key in ["a", "b", "c"] { lru.insert(key, cost: 1) }
        lru.access("a")
        #expect(lru.evict() == "b")
        #expect(lru.evict() == "c")
        #expect(lru.evict() == "a")
        #expect(lru.evict() == nil)
        #expect(lru.count == 0)
    }

    @Test func removeAndSlotReuseKeepOrder() {
        let lru = LRUPolicy<Int>()
        for key in 0..<5 { lru.insert(key, cost: 1) }
        lru.remove(2)
        lru.remove(42)  // untracked: no-op
        lru.insert(7, cost: 1)  // reuses the freed slot
        #expect(lru.count == 5)
        var order: [Int] = []
        while let key = lru.evict() { order.append(key) }
        #expect(order == [0, 1, 3, 4, 7])
    }

    /// Random operations against a plain array model of recency.
    @Test func matchesAReferenceModel() {
        var generator = SplitMix64(seed: 7)
        let lru = LRUPolicy<Int>()
        var model: [Int] = []  // least recent first
        for _ in 0..<20_000 {
            let key = Int(generator.next() % 64)
            switch generator.next() % 4 {
            case 0, 1:
                if let index = model.firstIndex(of: key) {
                    model.remove(at: index); lru.access(key)
                } else {
                    lru.insert(key, cost: 1)
                }
                model.append(key)
            case 2:
                model.removeAll { $0 == key }
                lru.remove(key)
            default:
                #expect(lru.evict() == (model.isEmpty ? nil : model.removeFirst()))
            }
            #expect(lru.count == model.count)
        }
    }
}
