import TroveCore

/// A keyed `EvictionPolicy` built on a slot policy: a `SlotTable` hands out slots for keys and maps
/// victims back. Every built-in policy is one of these (e.g. `LRUPolicy<Key>`), so the disk cache's
/// index and the memory cache share the same ordering code.
package final class KeyedEvictionPolicy<Key: Hashable, Core: SlotEvictionPolicy>: EvictionPolicy {
    private var table = SlotTable<Key>()
    /// The slot policy doing the ordering.
    package let core: Core

    /// Wraps `core`, which must track nothing yet.
    package init(core: Core) { self.core = core }

    /// Keys tracked now.
    package var count: Int { table.count }

    /// Starts tracking `key`; inserting a key already tracked counts as a hit on it.
    package func insert(_ key: Key, cost: Int) {
        let hash = key.hashValue
        if let slot = table.slot(for: key, hash: hash) { return core.access(slot) }
        let slot = table.insert(key, hash: hash)
        core.insert(slot, keyHash: hash, cost: cost)
    }

    /// Records a hit on `key`; no-op when untracked.
    package func access(_ key: Key) {
        if let slot = table.slot(for: key) { core.access(slot) }
    }

    /// Stops tracking `key`; no-op when untracked.
    package func remove(_ key: Key) {
        guard let slot = table.remove(key) else { return }
        core.remove(slot)
    }

    /// The core's victim, no longer tracked; nil when empty.
    package func evict() -> Key? {
        guard let slot = core.evict() else { return nil }
        return table.removeSlot(slot)
    }

    /// Stops tracking every key.
    package func removeAll() {
        table.removeAll()
        core.removeAll()
    }
}
