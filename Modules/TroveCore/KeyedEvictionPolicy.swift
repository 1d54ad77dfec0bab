/// A keyed `EvictionPolicy` built on a slot policy: it hands out slots for keys and maps victims back.
/// Every built-in policy is one of these (e.g. `LRUPolicy<Key>`), so the disk cache's index and the
/// memory cache share the same ordering code.
public final class KeyedEvictionPolicy<Key: Hashable, Core: SlotEvictionPolicy>: EvictionPolicy {
    private var slots: [Key: Int] = [:]
    private var keys: [Key?] = []
    private var freeSlots: [Int] = []
    public let core: Core

    public init(core: Core) { self.core = core }

    public var count: Int { slots.count }

    /// Inserting a key already tracked counts as a hit on it.
    public func insert(_ key: Key, cost: Int) {
        if let slot = slots[key] { return core.access(slot) }
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = reused
            keys[slot] = key
        } else {
            slot = keys.count
            keys.append(key)
        }
        slots[key] = slot
        core.insert(slot, keyHash: key.hashValue, cost: cost)
    }

    public func access(_ key: Key) {
        if let slot = slots[key] { core.access(slot) }
    }

    public func remove(_ key: Key) {
        guard let slot = slots.removeValue(forKey: key) else { return }
        core.remove(slot)
        release(slot)
    }

    public func evict() -> Key? {
        guard let slot = core.evict(), let key = keys[slot] else { return nil }
        slots.removeValue(forKey: key)
        release(slot)
        return key
    }

    public func removeAll() {
        slots.removeAll(); keys.removeAll(); freeSlots.removeAll()
        core.removeAll()
    }

    private func release(_ slot: Int) {
        keys[slot] = nil
        freeSlots.append(slot)
    }
}
