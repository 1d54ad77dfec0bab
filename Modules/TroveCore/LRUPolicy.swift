/// Least recently used: evicts the slot untouched for longest. A hit moves the slot to the front
/// of one list; the victim is the list's tail.
public final class LRUSlotPolicy: SlotEvictionPolicy {
    private var order = LinkedSlots()

    public init() {}

    public var count: Int { order.count }
    public func insert(_ slot: Int, keyHash: Int, cost: Int) { order.pushFront(slot) }
    public func access(_ slot: Int) { order.moveToFront(slot) }
    public func remove(_ slot: Int) { order.remove(slot) }
    public func evict() -> Int? { order.popBack() }
    public func removeAll() { order.removeAll() }
}

/// The keyed LRU the disk cache's index and tests use: `LRUPolicy<String>()`.
public typealias LRUPolicy<Key: Hashable> = KeyedEvictionPolicy<Key, LRUSlotPolicy>

extension KeyedEvictionPolicy where Core == LRUSlotPolicy {
    public convenience init() { self.init(core: LRUSlotPolicy()) }
}

public struct LRUPolicyFactory: EvictionPolicyFactory {
    public let name = "lru"
    public init() {}
    public func make<Key: Hashable>(capacity: Int, keyType: Key.Type) -> any EvictionPolicy<Key> {
        LRUPolicy<Key>()
    }
    public func makeSlotPolicy(capacity: Int) -> any SlotEvictionPolicy { LRUSlotPolicy() }
}
