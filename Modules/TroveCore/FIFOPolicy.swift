/// First in, first out: evicts the slot stored longest ago; hits change nothing.
public final class FIFOSlotPolicy: SlotEvictionPolicy {
    private var queue = LinkedSlots()

    public init() {}

    public var count: Int { queue.count }

    public func insert(_ slot: Int, keyHash: Int, cost: Int) {
        guard !queue.isTracked(slot) else { return }
        queue.pushFront(slot)
    }

    public func access(_ slot: Int) {}
    public func remove(_ slot: Int) { queue.remove(slot) }
    public func evict() -> Int? { queue.popBack() }
    public func removeAll() { queue.removeAll() }
}

public typealias FIFOPolicy<Key: Hashable> = KeyedEvictionPolicy<Key, FIFOSlotPolicy>

extension KeyedEvictionPolicy where Core == FIFOSlotPolicy {
    public convenience init() { self.init(core: FIFOSlotPolicy()) }
}

public struct FIFOPolicyFactory: EvictionPolicyFactory {
    public let name = "fifo"
    public init() {}
    public func make<Key: Hashable>(capacity: Int, keyType: Key.Type) -> any EvictionPolicy<Key> {
        FIFOPolicy<Key>()
    }
    public func makeSlotPolicy(capacity: Int) -> any SlotEvictionPolicy { FIFOSlotPolicy() }
}
