/// The slot-level form of an eviction policy. The owner gives every stored entry a small integer
/// slot (reused only after the entry is gone) and the policy keeps its order in arrays indexed by
/// slot, so a hit costs no hashing at all. Not thread-safe: the owner calls it under its lock.
@usableFromInline package protocol SlotEvictionPolicy: AnyObject {
    /// Slots tracked now.
    var count: Int { get }
    /// Starts tracking `slot` (not tracked now). `keyHash` identifies the key beyond the slot's
    /// lifetime, for policies that remember evicted keys (S3-FIFO's ghost) or count frequencies
    /// (W-TinyLFU's sketch).
    func insert(_ slot: Int, keyHash: Int, cost: Int)
    /// Records a hit on a tracked slot.
    func access(_ slot: Int)
    /// Stops tracking a slot the owner removed for its own reasons (no-op if untracked).
    func remove(_ slot: Int)
    /// Chooses a victim, stops tracking it and returns its slot; nil when nothing is tracked.
    func evict() -> Int?
    /// Stops tracking every slot.
    func removeAll()
}

/// Serves a keyed policy's slot form by using slot numbers as keys (for third-party factories).
final class SlotsOverKeyedPolicy: SlotEvictionPolicy {
    private let keyed: any EvictionPolicy<Int>

    init(_ keyed: any EvictionPolicy<Int>) { self.keyed = keyed }

    var count: Int { keyed.count }
    func insert(_ slot: Int, keyHash: Int, cost: Int) { keyed.insert(slot, cost: cost) }
    func access(_ slot: Int) { keyed.access(slot) }
    func remove(_ slot: Int) { keyed.remove(slot) }
    func evict() -> Int? { keyed.evict() }
    func removeAll() { keyed.removeAll() }
}
