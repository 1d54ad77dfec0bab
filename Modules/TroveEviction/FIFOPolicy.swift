import TroveCore

/// First in, first out: evicts the slot stored longest ago; hits change nothing.
package final class FIFOSlotPolicy: SlotEvictionPolicy {
    private var queue = LinkedSlots()

    /// An empty policy.
    package init() {}

    /// Slots tracked now.
    package var count: Int { queue.count }

    /// Starts tracking `slot`; no-op when it is tracked already.
    package func insert(_ slot: Int, keyHash: Int, cost: Int) {
        guard !queue.isTracked(slot) else { return }
        queue.pushFront(slot)
    }

    /// Hits change nothing in FIFO.
    package func access(_ slot: Int) {}
    /// Stops tracking `slot`; no-op when untracked.
    package func remove(_ slot: Int) { queue.remove(slot) }
    /// Chooses the victim, stops tracking it and returns it; nil when nothing is tracked.
    package func evict() -> Int? { queue.popBack() }
    /// Stops tracking every slot.
    package func removeAll() { queue.removeAll() }
}

/// The keyed FIFO policy, e.g. `FIFOPolicy<String>()`.
package typealias FIFOPolicy<Key: Hashable> = KeyedEvictionPolicy<Key, FIFOSlotPolicy>

extension KeyedEvictionPolicy where Core == FIFOSlotPolicy {
    /// A keyed FIFO policy tracking nothing yet.
    package convenience init() { self.init(core: FIFOSlotPolicy()) }
}

/// Makes FIFO policies; registered as "fifo".
package struct FIFOPolicyFactory: SlotEvictionPolicyFactory {
    /// The registry name.
    package let name = "fifo"
    /// The factory (it holds no state).
    package init() {}
    /// A keyed FIFO policy for a cache of `capacity` cost units.
    package func make<Key: Hashable>(capacity: Int, keyType: Key.Type) -> any EvictionPolicy<Key> {
        FIFOPolicy<Key>()
    }
    /// The slot form of FIFO, for owners that map keys to slots themselves.
    package func makeSlotPolicy(capacity: Int) -> any SlotEvictionPolicy { FIFOSlotPolicy() }
}
