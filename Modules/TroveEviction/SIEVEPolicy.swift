import TroveCore

/// SIEVE (Zhang et al., NSDI'24): one FIFO queue and a visited bit per entry. A hit only sets the
/// bit. A hand walks from the oldest entry toward the newest, clearing set bits, and evicts the first
/// entry whose bit is clear; the hand stays where it stopped for the next eviction, so survivors
/// keep their place instead of moving to the head.
package final class SIEVESlotPolicy: SlotEvictionPolicy {
    private struct State {
        var links = SlotLinks()
        var queue = SlotList(id: 0)
        var visited: [Bool] = []
        /// The next slot to examine; -1 means start again at the tail.
        var hand = -1

        mutating func evict() -> Int? {
            var slot = hand >= 0 ? hand : queue.tail
            guard slot >= 0 else { return nil }
            while visited[slot] {
                visited[slot] = false
                slot = links.newer(slot)
                if slot < 0 { slot = queue.tail }
            }
            hand = links.newer(slot)
            queue.remove(slot, &links)
            return slot
        }

        mutating func insert(_ slot: Int) {
            links.reserve(slot)
            if slot >= visited.count {
                visited.append(contentsOf: repeatElement(false, count: slot + 1 - visited.count))
            }
            guard !links.isTracked(slot) else { return visited[slot] = true }
            visited[slot] = false
            queue.pushFront(slot, &links)
        }

        mutating func remove(_ slot: Int) {
            if hand == slot { hand = links.newer(slot) }
            queue.remove(slot, &links)
        }
    }
    private var state = State()

    /// An empty policy.
    package init() {}

    /// Slots tracked now.
    package var count: Int { state.queue.count }

    /// Starts tracking `slot`; a slot tracked already counts as a hit.
    package func insert(_ slot: Int, keyHash: Int, cost: Int) { state.insert(slot) }

    /// Records a hit on `slot`; no-op when untracked.
    package func access(_ slot: Int) {
        guard state.links.isTracked(slot) else { return }
        state.visited[slot] = true
    }

    /// Stops tracking `slot`; no-op when untracked.
    package func remove(_ slot: Int) {
        guard state.links.isTracked(slot) else { return }
        state.remove(slot)
    }

    /// Chooses the victim, stops tracking it and returns it; nil when nothing is tracked.
    package func evict() -> Int? { state.evict() }

    /// Stops tracking every slot.
    package func removeAll() {
        state = State()
    }
}

/// The keyed SIEVE policy, e.g. `SIEVEPolicy<String>()`.
package typealias SIEVEPolicy<Key: Hashable> = KeyedEvictionPolicy<Key, SIEVESlotPolicy>

extension KeyedEvictionPolicy where Core == SIEVESlotPolicy {
    /// A keyed SIEVE policy tracking nothing yet.
    package convenience init() { self.init(core: SIEVESlotPolicy()) }
}

/// Makes SIEVE policies; registered as "sieve".
package struct SIEVEPolicyFactory: SlotEvictionPolicyFactory {
    /// The registry name.
    package let name = "sieve"
    /// The factory (it holds no state).
    package init() {}
    /// A keyed SIEVE policy for a cache of `capacity` cost units.
    package func make<Key: Hashable>(capacity: Int, keyType: Key.Type) -> any EvictionPolicy<Key> {
        SIEVEPolicy<Key>()
    }
    /// The slot form of SIEVE, for owners that map keys to slots themselves.
    package func makeSlotPolicy(capacity: Int) -> any SlotEvictionPolicy { SIEVESlotPolicy() }
}
