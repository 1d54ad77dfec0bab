import Synchronization
import TroveCore

/// A cost- and count-bounded, thread-safe in-memory cache. The hit path takes one lock around O(1)
/// work (a dictionary lookup and a policy update), so it is cheaper than an actor hop.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        let value: Value
        let cost: Int
    }

    private struct State: ~Copyable {
        var entries: [Key: Entry] = [:]
        var totalCost = 0
        var stats = MemoryCacheStats()
        let policy: any EvictionPolicy<Key>
    }

    public let configuration: MemoryCacheConfiguration
    private let state: Mutex<State>

    public init(configuration: MemoryCacheConfiguration = .init(),
                evictionPolicy: any EvictionPolicyFactory = LRUPolicyFactory()) {
        self.configuration = configuration
        let policy = evictionPolicy.make(capacity: configuration.costLimit, keyType: Key.self)
        self.state = Mutex(State(policy: policy))
    }

    public func value(forKey key: Key) -> Value? {
        state.withLock { state in
            guard let entry = state.entries[key] else {
                state.stats.misses += 1
                return nil
            }
            state.stats.hits += 1
            state.policy.access(key)
            return entry.value
        }
    }

    /// Stores a value; returns false when its cost is over the admission limit and it was not stored.
    @discardableResult
    public func setValue(_ value: Value, forKey key: Key, cost: Int) -> Bool {
        let cost = max(cost, 0)
        guard Double(cost) <= Double(configuration.costLimit) * configuration.maxEntryCostFraction else {
            // Drop any older value, so a reader never sees a stale one after a refused update.
            removeValue(forKey: key)
            return false
        }
        return state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) {
                state.totalCost -= old.cost
                state.policy.remove(key)
            }
            state.entries[key] = Entry(value: value, cost: cost)
            state.totalCost += cost
            state.policy.insert(key, cost: cost)
            while state.totalCost > configuration.costLimit || state.entries.count > configuration.countLimit {
                guard let victim = state.policy.evict(), let removed = state.entries.removeValue(forKey: victim) else {
                    break
                }
                state.totalCost -= removed.cost
                state.stats.evictions += 1
            }
            return state.entries[key] != nil
        }
    }

    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        state.withLock { state in
            guard let old = state.entries.removeValue(forKey: key) else { return nil }
            state.totalCost -= old.cost
            state.policy.remove(key)
            return old.value
        }
    }

    public func removeAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.totalCost = 0
            state.policy.removeAll()
        }
    }

    public var stats: MemoryCacheStats {
        state.withLock { state in
            var stats = state.stats
            stats.totalCost = state.totalCost
            stats.count = state.entries.count
            return stats
        }
    }
}
