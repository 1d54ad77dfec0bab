import TroveCore

/// Least frequently used: evicts the slot with the fewest hits since it was stored; among equals,
/// the one that reached that count first. A frequency is forgotten when its entry leaves.
///
/// O(1) per operation with frequency buckets (Shah, Mitra and Matani, 2010): a list of buckets in
/// increasing frequency, each holding its slots in arrival order. A hit moves a slot to the next
/// bucket, creating it when the next frequency has none.
package final class LFUSlotPolicy: SlotEvictionPolicy {
    private struct State {
        var links = SlotLinks()
        /// The bucket each tracked slot sits in.
        var bucketOf: [Int] = []
        // Buckets live in parallel arrays, chained in increasing frequency; freed ones are reused.
        var members: [SlotList] = []
        var frequency: [Int] = []
        var lower: [Int] = []
        var higher: [Int] = []
        var freeBuckets: [Int] = []
        /// The least frequent bucket; -1 when empty.
        var lowest = -1
        var count = 0

        /// A new empty bucket for `frequency`, chained right after `previous` (-1: at the start).
        mutating func makeBucket(frequency value: Int, after previous: Int) -> Int {
            let bucket: Int
            if let reused = freeBuckets.popLast() {
                bucket = reused
                members[bucket] = SlotList(id: 0)
                frequency[bucket] = value
            } else {
                bucket = members.count
                members.append(SlotList(id: 0)); frequency.append(value); lower.append(-1); higher.append(-1)
            }
            let following = previous >= 0 ? higher[previous] : lowest
            lower[bucket] = previous
            higher[bucket] = following
            if previous >= 0 { higher[previous] = bucket } else { lowest = bucket }
            if following >= 0 { lower[following] = bucket }
            return bucket
        }

        mutating func dropBucketIfEmpty(_ bucket: Int) {
            guard members[bucket].isEmpty else { return }
            let below = lower[bucket], above = higher[bucket]
            if below >= 0 { higher[below] = above } else { lowest = above }
            if above >= 0 { lower[above] = below }
            freeBuckets.append(bucket)
        }

        mutating func insert(_ slot: Int) {
            links.reserve(slot)
            if slot >= bucketOf.count {
                bucketOf.append(contentsOf: repeatElement(-1, count: slot + 1 - bucketOf.count))
            }
            if links.isTracked(slot) { return access(slot) }
            let bucket = lowest >= 0 && frequency[lowest] == 1 ? lowest : makeBucket(frequency: 1, after: -1)
            members[bucket].pushFront(slot, &links)
            bucketOf[slot] = bucket
            count += 1
        }

        mutating func access(_ slot: Int) {
            let bucket = bucketOf[slot]
            let next = higher[bucket]
            let target =
                next >= 0 && frequency[next] == frequency[bucket] + 1
                ? next : makeBucket(frequency: frequency[bucket] + 1, after: bucket)
            members[bucket].remove(slot, &links)
            members[target].pushFront(slot, &links)
            bucketOf[slot] = target
            dropBucketIfEmpty(bucket)
        }

        mutating func remove(_ slot: Int) {
            let bucket = bucketOf[slot]
            members[bucket].remove(slot, &links)
            dropBucketIfEmpty(bucket)
            count -= 1
        }

        mutating func evict() -> Int? {
            guard lowest >= 0, let slot = members[lowest].tail >= 0 ? members[lowest].tail : nil else { return nil }
            remove(slot)
            return slot
        }
    }
    private var state = State()

    /// An empty policy.
    package init() {}

    /// Slots tracked now.
    package var count: Int { state.count }

    /// Starts tracking `slot`; a slot tracked already counts as a hit.
    package func insert(_ slot: Int, keyHash: Int, cost: Int) { state.insert(slot) }

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
    package func removeAll() { state = State() }
}

/// The keyed LFU policy, e.g. `LFUPolicy<String>()`.
package typealias LFUPolicy<Key: Hashable> = KeyedEvictionPolicy<Key, LFUSlotPolicy>

extension KeyedEvictionPolicy where Core == LFUSlotPolicy {
    /// A keyed LFU policy tracking nothing yet.
    package convenience init() { self.init(core: LFUSlotPolicy()) }
}

/// Makes LFU policies; registered as "lfu".
package struct LFUPolicyFactory: SlotEvictionPolicyFactory {
    /// The registry name.
    package let name = "lfu"
    /// The factory (it holds no state).
    package init() {}
    /// A keyed LFU policy for a cache of `capacity` cost units.
    package func make<Key: Hashable>(capacity: Int, keyType: Key.Type) -> any EvictionPolicy<Key> {
        LFUPolicy<Key>()
    }
    /// The slot form of LFU, for owners that map keys to slots themselves.
    package func makeSlotPolicy(capacity: Int) -> any SlotEvictionPolicy { LFUSlotPolicy() }
}
