/// SIEVE (Zhang et al., NSDI'24): one FIFO queue and a visited bit per entry. A hit only sets the
/// bit. A hand walks from the oldest entry toward the newest, clearing set bits, and evicts the first
/// entry whose bit is clear; the hand stays where it stopped for the next eviction, so survivors
/// keep their place instead of moving to the head.
public final class SIEVESlotPolicy: SlotEvictionPolicy {
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

    public init() {}

    public var count: Int { state.queue.count }

    public func insert(_ slot: Int, keyHash: Int, cost: Int) { state.insert(slot) }

    public func access(_ slot: Int) {
        guard state.links.isTracked(slot) else { return }
        state.visited[slot] = true
    }

    public func remove(_ slot: Int) {
        guard state.links.isTracked(slot) else { return }
        state.remove(slot)
    }

    public func evict() -> Int? { state.evict() }

    public func removeAll() {
        state = State()
    }
}

public typealias SIEVEPolicy<Key: Hashable> = KeyedEvictionPolicy<Key, SIEVESlotPolicy>

extension KeyedEvictionPolicy where Core == SIEVESlotPolicy {
    public convenience init() { self.init(core: SIEVESlotPolicy()) }
}

public struct SIEVEPolicyFactory: EvictionPolicyFactory {
    public let name = "sieve"
    public init() {}
    public func make<Key: Hashable>(capacity: Int, keyType: Key.Type) -> any EvictionPolicy<Key> {
        SIEVEPolicy<Key>()
    }
    public func makeSlotPolicy(capacity: Int) -> any SlotEvictionPolicy { SIEVESlotPolicy() }
}
