/// Least recently used: evicts the key untouched for longest.
/// A doubly linked list threaded through arrays (indices, not references) keeps every step O(1)
/// without per-node allocations.
public final class LRUPolicy<Key: Hashable>: EvictionPolicy {
    private var slots: [Key: Int] = [:]
    private var keys: [Key?] = []
    private var prev: [Int] = []
    private var next: [Int] = []
    private var free: [Int] = []
    private var head = -1  // most recent
    private var tail = -1  // least recent

    public init() {}

    public var count: Int { slots.count }

    public func insert(_ key: Key, cost: Int) {
        if let slot = slots[key] { return moveToFront(slot) }
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
            keys[slot] = key
        } else {
            slot = keys.count
            keys.append(key); prev.append(-1); next.append(-1)
        }
        slots[key] = slot
        linkAtFront(slot)
    }

    public func access(_ key: Key) {
        if let slot = slots[key] { moveToFront(slot) }
    }

    public func remove(_ key: Key) {
        guard let slot = slots.removeValue(forKey: key) else { return }
        unlink(slot)
        keys[slot] = nil
        free.append(slot)
    }

    public func evict() -> Key? {
        guard tail >= 0, let key = keys[tail] else { return nil }
        remove(key)
        return key
    }

    public func removeAll() {
        slots.removeAll(); keys.removeAll(); prev.removeAll(); next.removeAll(); free.removeAll()
        head = -1; tail = -1
    }

    private func moveToFront(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        linkAtFront(slot)
    }

    private func linkAtFront(_ slot: Int) {
        prev[slot] = -1
        next[slot] = head
        if head >= 0 { prev[head] = slot }
        head = slot
        if tail < 0 { tail = slot }
    }

    private func unlink(_ slot: Int) {
        let p = prev[slot], n = next[slot]
        if p >= 0 { next[p] = n } else { head = n }
        if n >= 0 { prev[n] = p } else { tail = p }
        prev[slot] = -1; next[slot] = -1
    }
}

public struct LRUPolicyFactory: EvictionPolicyFactory {
    public let name = "lru"
    public init() {}
    public func make<Key: Hashable>(capacity: Int, keyType: Key.Type) -> any EvictionPolicy<Key> {
        LRUPolicy<Key>()
    }
}
