import TroveCore

/// W-TinyLFU (Einziger, Friedman and Manes, 2017), shaped as Caffeine describes it: newcomers enter
/// a small LRU window (1% of the cost); the rest is a segmented LRU main area whose protected segment
/// holds 80% of it and whose probation segment holds the remainder. When room is needed while the
/// window is full, the window's oldest entry (the candidate) contests the probation segment's oldest
/// (the victim): the one a TinyLFU frequency sketch (count-min, with a doorkeeper, aged by halving)
/// has seen less often is evicted. A hit in probation promotes to protected, whose overflow is demoted
/// back to probation.
///
/// Shares are measured against the most cost ever tracked at once (the owner's effective capacity),
/// so the policy also fits a cache bound by an entry count.
package final class WTinyLFUSlotPolicy: SlotEvictionPolicy {
    private static let window: Int8 = 0
    private static let probation: Int8 = 1
    private static let protected: Int8 = 2

    private struct State {
        var links = SlotLinks()
        var window = SlotList(id: WTinyLFUSlotPolicy.window)
        var probation = SlotList(id: WTinyLFUSlotPolicy.probation)
        var protected = SlotList(id: WTinyLFUSlotPolicy.protected)
        var costs: [Int] = []
        var keyHashes: [Int] = []
        var windowCost = 0
        var probationCost = 0
        var protectedCost = 0
        var peakCost = 0
        var sketch: CountMinSketch
        var doorkeeper: Doorkeeper
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            // A cost capacity is an entry count only when entries cost 1; start small otherwise and grow.
            let expected = capacity > 0 && capacity <= 1 << 16 ? capacity : 256
            sketch = CountMinSketch(expectedEntries: expected)
            doorkeeper = Doorkeeper(expectedEntries: expected)
        }

        var count: Int { window.count + probation.count + protected.count }
        var windowShare: Int { max(1, peakCost - Int(Double(peakCost) * 0.99)) }
        var protectedShare: Int { Int(0.8 * Double(peakCost - windowShare)) }

        /// A key's first sighting in a sample period only enters the doorkeeper; later ones count in
        /// the sketch. Like Caffeine, the sample advances only when a counter changed.
        mutating func record(_ keyHash: Int) {
            if doorkeeper.insert(keyHash), sketch.increment(keyHash) {
                doorkeeper.removeAll()
            }
        }

        func frequency(_ keyHash: Int) -> Int {
            sketch.frequency(keyHash) + (doorkeeper.contains(keyHash) ? 1 : 0)
        }

        mutating func insert(_ slot: Int, keyHash: Int, cost: Int) {
            links.reserve(slot)
            if slot >= costs.count {
                let missing = slot + 1 - costs.count
                costs.append(contentsOf: repeatElement(0, count: missing))
                keyHashes.append(contentsOf: repeatElement(0, count: missing))
            }
            if links.isTracked(slot) { return access(slot) }
            costs[slot] = cost
            keyHashes[slot] = keyHash
            if count >= sketch.expectedEntries { growSketch() }
            record(keyHash)
            window.pushFront(slot, &links)
            windowCost += cost
            peakCost = max(peakCost, windowCost + probationCost + protectedCost)
            // Past the window's share the oldest move on to probation uncontested: the cache is
            // still filling (or its owner stores before evicting).
            while windowCost > windowShare, window.count > 1, let oldest = window.popBack(&links) {
                windowCost -= costs[oldest]
                probation.pushFront(oldest, &links)
                probationCost += costs[oldest]
            }
        }

        mutating func access(_ slot: Int) {
            record(keyHashes[slot])
            switch links.home(slot) {
            case WTinyLFUSlotPolicy.window:
                window.moveToFront(slot, &links)
            case WTinyLFUSlotPolicy.probation:
                probation.remove(slot, &links)
                probationCost -= costs[slot]
                protected.pushFront(slot, &links)
                protectedCost += costs[slot]
                while protectedCost > protectedShare, protected.count > 1, let oldest = protected.popBack(&links) {
                    protectedCost -= costs[oldest]
                    probation.pushFront(oldest, &links)
                    probationCost += costs[oldest]
                }
            default:
                protected.moveToFront(slot, &links)
            }
        }

        mutating func remove(_ slot: Int) {
            switch links.home(slot) {
            case WTinyLFUSlotPolicy.window:
                window.remove(slot, &links); windowCost -= costs[slot]
            case WTinyLFUSlotPolicy.probation:
                probation.remove(slot, &links); probationCost -= costs[slot]
            default:
                protected.remove(slot, &links); protectedCost -= costs[slot]
            }
        }

        mutating func evict() -> Int? {
            let victim = probation.tail >= 0 ? probation.tail : protected.tail
            let candidate = window.tail
            if candidate >= 0, victim >= 0, windowCost >= windowShare {
                // The contest: the candidate is admitted only when it was seen more often.
                if frequency(keyHashes[candidate]) > frequency(keyHashes[victim]) {
                    remove(candidate)
                    probation.pushFront(candidate, &links)
                    probationCost += costs[candidate]
                    remove(victim)
                    return victim
                }
                remove(candidate)
                return candidate
            }
            let chosen = victim >= 0 ? victim : candidate
            guard chosen >= 0 else { return nil }
            remove(chosen)
            return chosen
        }

        /// Rebuilds the sketch for more entries; its counts restart (rare: the size at most doubles each time).
        mutating func growSketch() {
            sketch = CountMinSketch(expectedEntries: sketch.expectedEntries * 2)
            doorkeeper = Doorkeeper(expectedEntries: sketch.expectedEntries)
        }
    }
    private var state: State

    /// `capacity` is the owner's cost limit; it sizes the frequency sketch when costs are entry counts.
    package init(capacity: Int) { state = State(capacity: capacity) }

    /// Slots tracked now.
    package var count: Int { state.count }

    /// Starts tracking `slot`; a slot tracked already counts as a hit.
    package func insert(_ slot: Int, keyHash: Int, cost: Int) { state.insert(slot, keyHash: keyHash, cost: cost) }

    /// Records a hit on `slot`; no-op when untracked.
    package func access(_ slot: Int) {
        guard state.links.isTracked(slot) else { return }
        state.access(slot)
    }

    /// Stops tracking `slot`; no-op when untracked.
    package func remove(_ slot: Int) {
        guard state.links.isTracked(slot) else { return }
        state.remove(slot)
    }

    /// Chooses the victim, stops tracking it and returns it; nil when nothing is tracked.
    package func evict() -> Int? { state.evict() }

    /// Stops tracking every slot.
    package func removeAll() { state = State(capacity: state.capacity) }
}

/// The keyed W-TinyLFU policy, e.g. `WTinyLFUPolicy<String>()`.
package typealias WTinyLFUPolicy<Key: Hashable> = KeyedEvictionPolicy<Key, WTinyLFUSlotPolicy>

extension KeyedEvictionPolicy where Core == WTinyLFUSlotPolicy {
    /// A keyed W-TinyLFU policy tracking nothing yet.
    package convenience init(capacity: Int) { self.init(core: WTinyLFUSlotPolicy(capacity: capacity)) }
}

/// Makes W-TinyLFU policies; registered as "wtinylfu".
package struct WTinyLFUPolicyFactory: SlotEvictionPolicyFactory {
    /// The registry name.
    package let name = "wtinylfu"
    /// The factory (it holds no state).
    package init() {}
    /// A keyed W-TinyLFU policy for a cache of `capacity` cost units.
    package func make<Key: Hashable>(capacity: Int, keyType: Key.Type) -> any EvictionPolicy<Key> {
        WTinyLFUPolicy<Key>(capacity: capacity)
    }
    /// The slot form of W-TinyLFU, for owners that map keys to slots themselves.
    package func makeSlotPolicy(capacity: Int) -> any SlotEvictionPolicy { WTinyLFUSlotPolicy(capacity: capacity) }
}
