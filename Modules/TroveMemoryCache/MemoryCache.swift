import Synchronization
import TroveCore

/// A cost- and count-bounded, thread-safe in-memory cache with per-entry expiry and a pluggable
/// eviction policy. The hit path takes one lock around O(1) work: one hash lookup that yields the
/// entry's slot, then a slot-indexed policy update (no second lookup), so it is cheaper than an
/// actor hop.
///
/// Room is made before a new entry is stored (evict until it fits, then insert), which is the order
/// the policies' published definitions and the reference simulator assume.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Entries live in parallel arrays indexed by slot; freed slots are reused, so the policy's own
    /// slot-indexed arrays stay dense. Usable from inlinable code so that the hit path specialises
    /// for the caller's key and value types (unspecialised generic dictionary access costs several times more).
    @usableFromInline
    struct State: ~Copyable {
        @usableFromInline var slots: [Key: Int] = [:]
        @usableFromInline var keys: [Key?] = []
        @usableFromInline var values: [Value?] = []
        @usableFromInline var costs: [Int] = []
        @usableFromInline var deadlines: [Duration?] = []
        @usableFromInline var freeSlots: [Int] = []
        @usableFromInline var totalCost = 0
        @usableFromInline var stats = MemoryCacheStats()
        @usableFromInline let policy: any SlotEvictionPolicy
        /// No entry expires before this (nil: no entry has a deadline); it may be early, never late.
        @usableFromInline var earliestDeadline: Duration?
        @usableFromInline var storesSinceSweep = 0

        @usableFromInline init(policy: any SlotEvictionPolicy) { self.policy = policy }

        @inlinable mutating func store(_ value: Value, forKey key: Key, cost: Int, deadline: Duration?) -> Int {
            let slot: Int
            if let reused = freeSlots.popLast() {
                slot = reused
                keys[slot] = key; values[slot] = value; costs[slot] = cost; deadlines[slot] = deadline
            } else {
                slot = keys.count
                keys.append(key); values.append(value); costs.append(cost); deadlines.append(deadline)
            }
            slots[key] = slot
            totalCost += cost
            if let deadline { earliestDeadline = min(earliestDeadline ?? deadline, deadline) }
            storesSinceSweep += 1
            return slot
        }

        /// Forgets the entry in `slot` (the caller tells the policy, or the policy chose it).
        @inlinable @discardableResult
        mutating func release(_ slot: Int) -> Value? {
            guard let key = keys[slot] else { return nil }
            slots.removeValue(forKey: key)
            let value = values[slot]
            keys[slot] = nil; values[slot] = nil; deadlines[slot] = nil
            totalCost -= costs[slot]
            freeSlots.append(slot)
            return value
        }

        /// Drops every expired entry; O(count), so `sweepIfDue` runs it at most once per count/8 stores.
        @inlinable mutating func sweep(now: Duration) -> Int {
            var removed = 0
            var earliest: Duration?
            for slot in deadlines.indices {
                guard let deadline = deadlines[slot] else { continue }
                if now >= deadline {
                    policy.remove(slot)
                    release(slot)
                    removed += 1
                } else {
                    earliest = min(earliest ?? deadline, deadline)
                }
            }
            earliestDeadline = earliest
            storesSinceSweep = 0
            stats.expirations += removed
            return removed
        }

        @inlinable mutating func sweepIfDue(now: Duration) {
            guard let earliestDeadline, now >= earliestDeadline, storesSinceSweep >= slots.count / 8 else { return }
            _ = sweep(now: now)
        }
    }

    public let configuration: MemoryCacheConfiguration
    @usableFromInline let clock: any TroveClock
    @usableFromInline let state: Mutex<State>

    /// `evictionPolicy` picks victims (see `PluginRegistry.evictionPolicy(named:)`); `clock` decides
    /// expiry and is only read for entries that have a TTL.
    public init(configuration: MemoryCacheConfiguration = .init(),
                evictionPolicy: any EvictionPolicyFactory = LRUPolicyFactory(),
                clock: any TroveClock = SystemClock()) {
        self.configuration = configuration
        self.clock = clock
        self.state = Mutex(State(policy: evictionPolicy.makeSlotPolicy(capacity: configuration.costLimit)))
    }

    /// The stored value, or nil when absent or expired (an expired entry is removed on the way).
    @inlinable
    public func value(forKey key: Key) -> Value? {
        state.withLock { state in
            guard let slot = state.slots[key] else {
                state.stats.misses += 1
                return nil
            }
            // No entry has a deadline unless earliestDeadline is set: skip the lookup then.
            if state.earliestDeadline != nil, let deadline = state.deadlines[slot], clock.now() >= deadline {
                state.policy.remove(slot)
                state.release(slot)
                state.stats.expirations += 1
                state.stats.misses += 1
                return nil
            }
            state.stats.hits += 1
            state.policy.access(slot)
            return state.values[slot]
        }
    }

    /// Stores a value that expires after `ttl` (default: the configuration's `defaultTTL`). Returns
    /// false when its cost is over the admission limit and it was not stored; any older value for
    /// the key is dropped then, so a reader never sees a stale one after a refused update.
    @inlinable @discardableResult
    public func setValue(_ value: Value, forKey key: Key, cost: Int, ttl: Duration? = nil) -> Bool {
        let cost = max(cost, 0)
        guard configuration.admits(cost: cost) else {
            removeValue(forKey: key)
            return false
        }
        let ttl = ttl ?? configuration.defaultTTL
        return state.withLock { state in
            if let old = state.slots[key] {
                state.policy.remove(old)
                state.release(old)
            }
            var deadline: Duration?
            if ttl != nil || state.earliestDeadline != nil {
                let now = clock.now()
                state.sweepIfDue(now: now)
                if let ttl { deadline = now + ttl }
            }
            while state.totalCost + cost > configuration.costLimit || state.slots.count >= configuration.countLimit {
                guard let victim = state.policy.evict() else { break }
                state.release(victim)
                state.stats.evictions += 1
            }
            guard state.totalCost + cost <= configuration.costLimit, state.slots.count < configuration.countLimit else {
                return false
            }
            let slot = state.store(value, forKey: key, cost: cost, deadline: deadline)
            state.policy.insert(slot, keyHash: key.hashValue, cost: cost)
            return true
        }
    }

    @inlinable @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        state.withLock { state in
            guard let slot = state.slots[key] else { return nil }
            state.policy.remove(slot)
            return state.release(slot)
        }
    }

    /// Drops every expired entry now; returns how many. Expired entries are also dropped when looked
    /// up, and swept on stores from time to time.
    @discardableResult
    public func removeExpired() -> Int {
        let now = clock.now()
        return state.withLock { state in state.sweep(now: now) }
    }

    public func removeAll() {
        state.withLock { state in
            state.slots.removeAll(); state.keys.removeAll(); state.values.removeAll()
            state.costs.removeAll(); state.deadlines.removeAll(); state.freeSlots.removeAll()
            state.totalCost = 0
            state.earliestDeadline = nil
            state.storesSinceSweep = 0
            state.policy.removeAll()
        }
    }

    public var stats: MemoryCacheStats {
        state.withLock { state in
            var stats = state.stats
            stats.totalCost = state.totalCost
            stats.count = state.slots.count
            return stats
        }
    }
}
