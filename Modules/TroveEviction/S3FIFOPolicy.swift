import TroveCore

/// S3-FIFO (Yang et al., SOSP'23): a small FIFO taking about 10% of the cost, a main FIFO with the
/// rest, and a ghost FIFO of recently evicted keys. New keys enter the small queue (the main queue
/// when the ghost remembers them). Each entry has a 2-bit hit counter. Evicting from the small queue
/// moves its oldest entry to the main queue when it was hit more than once (the published rule,
/// `freq > 1`), else drops it into the ghost. Evicting from the main queue gives entries with hits
/// another round with one hit fewer (a 2-bit CLOCK), and drops the first without.
///
/// The queue shares are taken from the cost tracked when an eviction is asked for (the owner is
/// full then), so the policy stays right when a count limit, not the cost limit, is what binds.
package final class S3FIFOSlotPolicy: SlotEvictionPolicy {
    private static let small: Int8 = 0
    private static let main: Int8 = 1

    private struct State {
        var links = SlotLinks()
        var small = SlotList(id: S3FIFOSlotPolicy.small)
        var main = SlotList(id: S3FIFOSlotPolicy.main)
        var hits: [UInt8] = []
        var costs: [Int] = []
        var keyHashes: [Int] = []
        var smallCost = 0
        var mainCost = 0
        /// The most cost ever tracked at once: what the ghost's bound is measured against.
        var peakCost = 0
        var hasEvicted = false
        var ghost = GhostQueue()
        let capacity: Int

        init(capacity: Int) { self.capacity = capacity }

        mutating func insert(_ slot: Int, keyHash: Int, cost: Int) {
            links.reserve(slot)
            if slot >= hits.count {
                let missing = slot + 1 - hits.count
                hits.append(contentsOf: repeatElement(0, count: missing))
                costs.append(contentsOf: repeatElement(0, count: missing))
                keyHashes.append(contentsOf: repeatElement(0, count: missing))
            }
            if links.isTracked(slot) { return access(slot) }
            hits[slot] = 0
            costs[slot] = cost
            keyHashes[slot] = keyHash
            // Until the first eviction a full small queue sends newcomers to main, so the cache fills
            // without flushing them (the reference simulator's refinement of the paper).
            if ghost.remove(keyHash) || (!hasEvicted && capacity > 0 && smallCost >= capacity / 10) {
                main.pushFront(slot, &links)
                mainCost += cost
            } else {
                small.pushFront(slot, &links)
                smallCost += cost
            }
            peakCost = max(peakCost, smallCost + mainCost)
        }

        @inline(__always)
        mutating func access(_ slot: Int) {
            if hits[slot] < 3 { hits[slot] += 1 }
        }

        mutating func remove(_ slot: Int) {
            if links.home(slot) == S3FIFOSlotPolicy.small {
                small.remove(slot, &links)
                smallCost -= costs[slot]
            } else {
                main.remove(slot, &links)
                mainCost -= costs[slot]
            }
        }

        mutating func evict() -> Int? {
            hasEvicted = true
            let total = smallCost + mainCost
            let mainShare = total - total / 10
            if mainCost > mainShare || small.isEmpty {
                return evictMain()
            }
            return evictSmall() ?? evictMain()
        }

        private mutating func evictSmall() -> Int? {
            while let oldest = small.popBack(&links) {
                smallCost -= costs[oldest]
                if hits[oldest] > 1 {
                    hits[oldest] = 0
                    main.pushFront(oldest, &links)
                    mainCost += costs[oldest]
                } else {
                    ghost.add(keyHashes[oldest], cost: costs[oldest], limit: peakCost - peakCost / 10)
                    return oldest
                }
            }
            return nil
        }

        private mutating func evictMain() -> Int? {
            while let oldest = main.popBack(&links) {
                if hits[oldest] > 0 {
                    hits[oldest] -= 1
                    main.pushFront(oldest, &links)
                } else {
                    mainCost -= costs[oldest]
                    return oldest
                }
            }
            return nil
        }
    }
    private var state: State

    /// `capacity` is the owner's cost limit; it only decides where newcomers go before the first eviction.
    package init(capacity: Int) { state = State(capacity: capacity) }

    /// Slots tracked now.
    package var count: Int { state.small.count + state.main.count }

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

/// The keyed S3-FIFO policy, e.g. `S3FIFOPolicy<String>()`.
package typealias S3FIFOPolicy<Key: Hashable> = KeyedEvictionPolicy<Key, S3FIFOSlotPolicy>

extension KeyedEvictionPolicy where Core == S3FIFOSlotPolicy {
    /// A keyed S3-FIFO policy tracking nothing yet.
    package convenience init(capacity: Int) { self.init(core: S3FIFOSlotPolicy(capacity: capacity)) }
}

/// Makes S3-FIFO policies; registered as "s3fifo".
package struct S3FIFOPolicyFactory: SlotEvictionPolicyFactory {
    /// The registry name.
    package let name = "s3fifo"
    /// The factory (it holds no state).
    package init() {}
    /// A keyed S3-FIFO policy for a cache of `capacity` cost units.
    package func make<Key: Hashable>(capacity: Int, keyType: Key.Type) -> any EvictionPolicy<Key> {
        S3FIFOPolicy<Key>(capacity: capacity)
    }
    /// The slot form of S3-FIFO, for owners that map keys to slots themselves.
    package func makeSlotPolicy(capacity: Int) -> any SlotEvictionPolicy { S3FIFOSlotPolicy(capacity: capacity) }
}
