import TroveCore

/// Least recently used: evicts the slot untouched for longest. A hit moves the slot to the front
/// of one list; the victim is the list's tail.
public final class LRUSlotPolicy: SlotEvictionPolicy {
    private var order = LinkedSlots()

    /// An empty policy.
    public init() {}

    /// Slots tracked now.
    public var count: Int { order.count }
    /// Starts tracking `slot`; a slot tracked already counts as a hit.
    public func insert(_ slot: Int, keyHash: Int, cost: Int) { order.pushFront(slot) }
    /// Records a hit on `slot`; no-op when untracked.
    public func access(_ slot: Int) { order.moveToFront(slot) }
    /// Stops tracking `slot`; no-op when untracked.
    public func remove(_ slot: Int) { order.remove(slot) }
    /// Chooses the victim, stops tracking it and returns it; nil when nothing is tracked.
    public func evict() -> Int? { order.popBack() }
    /// Stops tracking every slot.
    public func removeAll() { order.removeAll() }
}

/// The keyed LRU the disk cache's index and tests use: `LRUPolicy<String>()`.
public typealias LRUPolicy<Key: Hashable> = KeyedEvictionPolicy<Key, LRUSlotPolicy>

extension KeyedEvictionPolicy where Core == LRUSlotPolicy {
    /// A keyed LRU policy tracking nothing yet.
    public convenience init() { self.init(core: LRUSlotPolicy()) }
}

/// Makes LRU policies; registered as "lru".
public struct LRUPolicyFactory: EvictionPolicyFactory {
    /// The registry name.
    public let name = "lru"
    /// The factory (it holds no state).
    public init() {}
    /// A keyed LRU policy for a cache of `capacity` cost units.
    public func make<Key: Hashable>(capacity: Int, keyType: Key.Type) -> any EvictionPolicy<Key> {
        LRUPolicy<Key>()
    }
    /// The slot form of LRU, for owners that map keys to slots themselves.
    public func makeSlotPolicy(capacity: Int) -> any SlotEvictionPolicy { LRUSlotPolicy() }
}
