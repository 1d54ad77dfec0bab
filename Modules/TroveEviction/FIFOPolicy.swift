import TroveCore

/// First in, first out: evicts the slot stored longest ago; hits change nothing.
public final class FIFOSlotPolicy: SlotEvictionPolicy {
    private var queue = LinkedSlots()

    /// An empty policy.
    public init() {}

    /// Slots tracked now.
    public var count: Int { queue.count }

    /// Starts tracking `slot`; no-op when it is tracked already.
    public func insert(_ slot: Int, keyHash: Int, cost: Int) {
        guard !queue.isTracked(slot) else { return }
        queue.pushFront(slot)
    }

    /// Hits change nothing in FIFO.
    public func access(_ slot: Int) {}
    /// Stops tracking `slot`; no-op when untracked.
    public func remove(_ slot: Int) { queue.remove(slot) }
    /// Chooses the victim, stops tracking it and returns it; nil when nothing is tracked.
    public func evict() -> Int? { queue.popBack() }
    /// Stops tracking every slot.
    public func removeAll() { queue.removeAll() }
}

/// The keyed FIFO policy, e.g. `FIFOPolicy<String>()`.
public typealias FIFOPolicy<Key: Hashable> = KeyedEvictionPolicy<Key, FIFOSlotPolicy>

extension KeyedEvictionPolicy where Core == FIFOSlotPolicy {
    /// A keyed FIFO policy tracking nothing yet.
    public convenience init() { self.init(core: FIFOSlotPolicy()) }
}

/// Makes FIFO policies; registered as "fifo".
public struct FIFOPolicyFactory: EvictionPolicyFactory {
    /// The registry name.
    public let name = "fifo"
    /// The factory (it holds no state).
    public init() {}
    /// A keyed FIFO policy for a cache of `capacity` cost units.
    public func make<Key: Hashable>(capacity: Int, keyType: Key.Type) -> any EvictionPolicy<Key> {
        FIFOPolicy<Key>()
    }
    /// The slot form of FIFO, for owners that map keys to slots themselves.
    public func makeSlotPolicy(capacity: Int) -> any SlotEvictionPolicy { FIFOSlotPolicy() }
}
