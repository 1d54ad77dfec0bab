import Synchronization
import TroveCore
import TroveEviction

/// A cost- and count-bounded, thread-safe in-memory cache with per-entry expiry and a pluggable
/// eviction policy.
///
/// A large cache is split into shards by key hash (up to 16), each with its own lock, policy and
/// share of the limits, so hits on different threads rarely meet on one lock. A cache is only split
/// while every shard still holds at least 32 entries' worth of the count limit and any entry the
/// cost limit admits; a small cache is one shard and behaves exactly as one policy over all entries.
/// The hit path hashes the key once (for the shard and its slot table), takes the shard's lock
/// around O(1) work, and updates the policy by slot with no second lookup.
///
/// Room is made before a new entry is stored (evict until it fits, then insert), which is the order
/// the policies' published definitions and the reference simulator assume.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    // @unchecked: every shard's mutable state sits behind that shard's Mutex; the rest is immutable.

    /// One shard: its entries live in arrays indexed by the slots its `SlotTable` hands out (freed
    /// slots are reused, so the policy's own slot-indexed arrays stay dense). Usable from inlinable
    /// code so that the hit path specialises for the caller's key and value types.
    @usableFromInline
    struct State: ~Copyable {
        @usableFromInline var table = SlotTable<Key>()
        @usableFromInline var values: [Value?] = []
        @usableFromInline var costs: [Int] = []
        @usableFromInline var deadlines: [Duration?] = []
        @usableFromInline var totalCost = 0
        @usableFromInline var stats = MemoryCacheStats()
        @usableFromInline let policy: any SlotEvictionPolicy
        /// This shard's share of the limits.
        @usableFromInline let costLimit: Int
        @usableFromInline let countLimit: Int
        /// No entry expires before this (nil: no entry has a deadline); it may be early, never late.
        @usableFromInline var earliestDeadline: Duration?
        @usableFromInline var storesSinceSweep = 0
        /// Keeps the next shard's lock off the cache line of this shard's counters.
        @usableFromInline var padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)

        @usableFromInline init(policy: any SlotEvictionPolicy, costLimit: Int, countLimit: Int) {
            self.policy = policy
            self.costLimit = costLimit
            self.countLimit = countLimit
        }

        @inlinable var count: Int { table.count }

        @inlinable mutating func store(_ value: Value, forKey key: Key, hash: Int, cost: Int, deadline: Duration?)
            -> Int
        {
            let slot = table.insert(key, hash: hash)
            if slot < values.count {
                values[slot] = value; costs[slot] = cost; deadlines[slot] = deadline
            } else {
                values.append(value); costs.append(cost); deadlines.append(deadline)
            }
            totalCost += cost
            if let deadline { earliestDeadline = min(earliestDeadline ?? deadline, deadline) }
            storesSinceSweep += 1
            return slot
        }

        /// Forgets the entry in `slot` (the caller tells the policy, or the policy chose it).
        @inlinable @discardableResult
        mutating func release(_ slot: Int) -> Value? {
            guard table.removeSlot(slot) != nil else { return nil }
            let value = values[slot]
            values[slot] = nil; deadlines[slot] = nil
            totalCost -= costs[slot]
            return value
        }

        /// Drops every expired entry; O(slots), so `sweepIfDue` runs it at most once per count/8 stores.
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
            guard let earliestDeadline, now >= earliestDeadline, storesSinceSweep >= count / 8 else { return }
            _ = sweep(now: now)
        }

        mutating func removeAll() {
            table.removeAll(); values.removeAll(); costs.removeAll(); deadlines.removeAll()
            totalCost = 0
            earliestDeadline = nil
            storesSinceSweep = 0
            policy.removeAll()
        }
    }

    /// The limits, admission rule and default TTL this cache was made with.
    public let configuration: MemoryCacheConfiguration
    /// How many shards the cache is split into (a power of two; 1 for a small cache).
    package let shardCount: Int
    @usableFromInline let clock: any TroveClock
    /// The shards, each `shardStride` bytes apart (a multiple of 128, so no two share a cache line).
    @usableFromInline let shards: UnsafeMutableRawPointer
    @usableFromInline let shardStride: Int
    @usableFromInline let shardMask: Int

    /// Shard counts are powers of two up to this.
    static var maximumShardCount: Int { 16 }
    /// A shard holds at least this many entries' worth of the count limit.
    static var minimumEntriesPerShard: Int { 32 }

    /// `evictionPolicy` picks victims (see `PluginRegistry.evictionPolicy(named:)`), one policy per
    /// shard; `clock` decides expiry and is only read for entries that have a TTL.
    public init(
        configuration: MemoryCacheConfiguration = .init(),
        evictionPolicy: any EvictionPolicyFactory = LRUPolicyFactory(),
        clock: any TroveClock = SystemClock()
    ) {
        self.configuration = configuration
        self.clock = clock
        let count = Self.shardCount(for: configuration)
        shardCount = count
        shardMask = count - 1
        shardStride = (MemoryLayout<Mutex<State>>.stride + 127) & ~127
        shards = UnsafeMutableRawPointer.allocate(byteCount: shardStride * count, alignment: 128)
        for index in 0..<count {
            let costLimit = Self.share(of: configuration.costLimit, shard: index, of: count)
            let countLimit = Self.share(of: configuration.countLimit, shard: index, of: count)
            let state = State(
                policy: evictionPolicy.slotPolicy(capacity: costLimit),
                costLimit: costLimit, countLimit: countLimit)
            (shards + index * shardStride).bindMemory(to: Mutex<State>.self, capacity: 1)
                .initialize(to: Mutex(state))
        }
    }

    deinit {
        for index in 0..<shardCount {
            (shards + index * shardStride).assumingMemoryBound(to: Mutex<State>.self).deinitialize(count: 1)
        }
        shards.deallocate()
    }

    /// The most shards that keep every shard at least `minimumEntriesPerShard` of the count limit and
    /// able to hold any entry the configuration admits. A cost limit of `Int.max` bounds nothing.
    static func shardCount(for configuration: MemoryCacheConfiguration) -> Int {
        let costLimit = configuration.costLimit, countLimit = configuration.countLimit
        let largestEntry = min(Double(costLimit), Double(costLimit) * configuration.maxEntryCostFraction)
        var count = 1
        while count < maximumShardCount {
            let next = count * 2
            guard countLimit / next >= minimumEntriesPerShard else { break }
            guard costLimit == .max || Double(costLimit / next) >= largestEntry else { break }
            count = next
        }
        return count
    }

    /// Shard `index`'s part of `limit` split `count` ways (the remainder goes to the first shards);
    /// `Int.max` stays unbounded in every shard.
    static func share(of limit: Int, shard index: Int, of count: Int) -> Int {
        guard limit != .max, count > 1 else { return limit }
        return limit / count + (index < limit % count ? 1 : 0)
    }

    /// The shard a key hash falls in (top bits; the slot table uses the low ones).
    @inlinable
    func shard(_ hash: Int) -> UnsafeMutablePointer<Mutex<State>> {
        let index = Int(truncatingIfNeeded: UInt(bitPattern: hash) &>> 58) & shardMask
        return (shards + index &* shardStride).assumingMemoryBound(to: Mutex<State>.self)
    }

    /// The stored value, or nil when absent or expired (an expired entry is removed on the way).
    @inlinable
    public func value(forKey key: Key) -> Value? {
        let hash = key.hashValue
        return shard(hash).pointee.withLock { state in
            guard let slot = state.table.slot(for: key, hash: hash) else {
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
        let hash = key.hashValue
        return shard(hash).pointee.withLock { state in
            if let old = state.table.slot(for: key, hash: hash) {
                state.policy.remove(old)
                state.release(old)
            }
            var deadline: Duration?
            if ttl != nil || state.earliestDeadline != nil {
                let now = clock.now()
                state.sweepIfDue(now: now)
                if let ttl { deadline = now + ttl }
            }
            while state.totalCost + cost > state.costLimit || state.count >= state.countLimit {
                guard let victim = state.policy.evict() else { break }
                state.release(victim)
                state.stats.evictions += 1
            }
            guard state.totalCost + cost <= state.costLimit, state.count < state.countLimit else {
                return false
            }
            let slot = state.store(value, forKey: key, hash: hash, cost: cost, deadline: deadline)
            state.policy.insert(slot, keyHash: hash, cost: cost)
            return true
        }
    }

    /// Removes and returns the value for `key`; nil when there was none.
    @inlinable @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        let hash = key.hashValue
        return shard(hash).pointee.withLock { state in
            guard let slot = state.table.slot(for: key, hash: hash) else { return nil }
            state.policy.remove(slot)
            return state.release(slot)
        }
    }

    /// Drops every expired entry now; returns how many. Expired entries are also dropped when looked
    /// up, and swept on stores from time to time.
    @discardableResult
    public func removeExpired() -> Int {
        let now = clock.now()
        var removed = 0
        for index in 0..<shardCount {
            removed += shardAt(index).pointee.withLock { state in state.sweep(now: now) }
        }
        return removed
    }

    /// Evicts, in the policy's order, until the cache holds at most `fraction` (0...1) of its cost limit,
    /// and as much of its count limit: what an app does when the system warns of memory pressure, or a
    /// server between bursts. Expired entries go first. Returns how many entries were removed; evictions
    /// are counted as such.
    @discardableResult
    public func trim(toFraction fraction: Double) -> Int {
        let fraction = min(max(fraction.isNaN ? 0 : fraction, 0), 1)
        let now = clock.now()
        var removed = 0
        for index in 0..<shardCount {
            removed += shardAt(index).pointee.withLock { state in
                var count = state.sweep(now: now)
                let costTarget = Int((Double(state.costLimit) * fraction).rounded(.down))
                let countTarget =
                    state.countLimit == .max ? Int.max : Int((Double(state.countLimit) * fraction).rounded(.down))
                while state.totalCost > costTarget || state.count > countTarget {
                    guard let victim = state.policy.evict() else { break }
                    state.release(victim)
                    state.stats.evictions += 1
                    count += 1
                }
                return count
            }
        }
        return removed
    }

    /// Removes every entry whose key satisfies `predicate`; returns how many. Visits every entry, so it is
    /// for maintenance (forgetting one URL's results), not for a request's path.
    @discardableResult
    public func removeValues(where predicate: (Key) -> Bool) -> Int {
        var removed = 0
        for index in 0..<shardCount {
            removed += shardAt(index).pointee.withLock { state in
                var count = 0
                for slot in 0..<state.table.slotCapacity {
                    guard let key = state.table.key(at: slot), predicate(key) else { continue }
                    state.policy.remove(slot)
                    state.release(slot)
                    count += 1
                }
                return count
            }
        }
        return removed
    }

    /// Drops every entry (counters keep counting).
    public func removeAll() {
        for index in 0..<shardCount {
            shardAt(index).pointee.withLock { state in state.removeAll() }
        }
    }

    /// The counters, summed over the shards (each shard read at its own instant).
    public var stats: MemoryCacheStats {
        var total = MemoryCacheStats()
        for index in 0..<shardCount {
            shardAt(index).pointee.withLock { state in
                total.hits += state.stats.hits
                total.misses += state.stats.misses
                total.evictions += state.stats.evictions
                total.expirations += state.stats.expirations
                total.totalCost += state.totalCost
                total.count += state.count
            }
        }
        return total
    }

    private func shardAt(_ index: Int) -> UnsafeMutablePointer<Mutex<State>> {
        (shards + index * shardStride).assumingMemoryBound(to: Mutex<State>.self)
    }
}
