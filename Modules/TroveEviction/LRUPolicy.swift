import TroveCore

/// Least recently used: evicts the slot untouched for longest. A hit moves the slot to the front
/// of one list; the victim is the list's tail.
package final class LRUSlotPolicy: SlotEvictionPolicy {
    private var order = LinkedSlots()

    /// An empty policy.
    package init() {}

    /// Slots tracked now.
    package var count: Int { order.count }
    /// Starts tracking `slot`; a slot tracked already counts as a hit.
    package func insert(_ slot: Int, keyHash: Int, cost: Int) { order.pushFront(slot) }
    /// Records a hit on `slot`; no-op when untracked.
    package func access(_ slot: Int) { order.moveToFront(slot) }
    /// Stops tracking `slot`; no-op when untracked.
    package func remove(_ slot: Int) { order.remove(slot) }
    /// Chooses the victim, stops tracking it and returns it; nil when nothing is tracked.
    package func evict() -> Int? { order.popBack() }
    /// Stops tracking every slot.
    package func removeAll() { order.removeAll() }
}

/// The keyed LRU the disk cache's index and tests use: `LRUPolicy<String>()`.
package typealias LRUPolicy<Key: Hashable> = KeyedEvictionPolicy<Key, LRUSlotPolicy>

extension KeyedEvictionPolicy where Core == LRUSlotPolicy {
    /// A keyed LRU policy tracking nothing yet.
    package convenience init() { self.init(core: LRUSlotPolicy()) }
}

/// Makes LRU policies; registered as "lru".
@usableFromInline package struct LRUPolicyFactory: SlotEvictionPolicyFactory {
    /// The registry name.
    @usableFromInline package let name = "lru"
    /// The factory (it holds no state).
    @usableFromInline package init() {}
    /// A keyed LRU policy for a cache of `capacity` cost units.
    @usableFromInline package func make<Key: Hashable>(capacity: Int, keyType: Key.Type) -> any EvictionPolicy<Key> {
        LRUPolicy<Key>()
    }
    /// The slot form of LRU, for owners that map keys to slots themselves.
    package func makeSlotPolicy(capacity: Int) -> any SlotEvictionPolicy { LRUSlotPolicy() }
}
