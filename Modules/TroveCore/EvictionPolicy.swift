/// Tracks the keys a bounded cache holds and picks which to drop. Not thread-safe: the owning cache
/// calls it under its own lock. Every operation is O(1) amortised.
///
/// Callers get the published behaviour of each policy when they make room *before* storing a new
/// key (evict until the new cost fits, then insert), as reference simulators do.
public protocol EvictionPolicy<Key>: AnyObject {
    /// The cache's key type.
    associatedtype Key: Hashable

    /// Keys tracked now.
    var count: Int { get }
    /// Starts tracking a key the cache just stored (it was not tracked before).
    func insert(_ key: Key, cost: Int)
    /// Records a hit on a tracked key.
    func access(_ key: Key)
    /// Stops tracking a key the cache removed for its own reasons (no-op if untracked).
    func remove(_ key: Key)
    /// Chooses a victim among tracked keys, stops tracking it, and returns it; nil when empty.
    /// An admission-controlled policy may return the key it was just given.
    func evict() -> Key?
    /// Stops tracking every key.
    func removeAll()
}

/// Makes a fresh policy per cache (the built-in ones live in TroveEviction). `capacity` is in the cost units the cache passes to `insert`.
public protocol EvictionPolicyFactory: Sendable {
    /// The registry name, e.g. "lru".
    var name: String { get }
    /// A keyed policy for a cache of `capacity` cost units.
    func make<Key: Hashable>(capacity: Int, keyType: Key.Type) -> any EvictionPolicy<Key>
}

/// A factory that also makes its policy working on slot numbers the owner hands out, for owners (the memory
/// cache) that already map keys to slots and should not pay for a second hash lookup per hit. The built-in
/// factories are; a third-party one need not be.
package protocol SlotEvictionPolicyFactory: EvictionPolicyFactory {
    /// The slot-numbered policy for a cache of `capacity` cost units.
    func makeSlotPolicy(capacity: Int) -> any SlotEvictionPolicy
}

extension EvictionPolicyFactory {
    /// The factory's slot policy, or for a third-party factory that only makes keyed policies, its keyed
    /// policy with slot numbers as keys.
    package func slotPolicy(capacity: Int) -> any SlotEvictionPolicy {
        if let slotted = self as? any SlotEvictionPolicyFactory {
            return slotted.makeSlotPolicy(capacity: capacity)
        }
        return SlotsOverKeyedPolicy(make(capacity: capacity, keyType: Int.self))
    }
}
