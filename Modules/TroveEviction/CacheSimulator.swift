import TroveCore

/// Replays requests through an eviction policy the way a reference cache simulator (libCacheSim)
/// does: a request for a key the cache holds is a hit; any other request is a miss, the first one
/// for a key included, and stores the key after evicting until its size fits. A key larger than the
/// whole capacity is counted as a miss and never stored. `trove sim` and the policy tests use this.
package struct CacheSimulator {
    /// What a replay counted.
    package struct Result: Sendable, Equatable, Codable {
        /// Requests replayed.
        package var requests = 0
        /// Requests for a key the cache held.
        package var hits = 0
        /// Every other request, the first one for each key included.
        package var misses = 0
        /// Misses over requests; 0 before any request.
        package var missRatio: Double { requests == 0 ? 0 : Double(misses) / Double(requests) }

        /// Nothing counted yet.
        package init() {}

        private enum CodingKeys: String, CodingKey { case requests, hits, misses, missRatio }

        /// Reads the counts (the stored miss ratio is derived, so it is not read back).
        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            requests = try container.decode(Int.self, forKey: .requests)
            hits = try container.decode(Int.self, forKey: .hits)
            misses = try container.decode(Int.self, forKey: .misses)
        }

        /// Writes the counts and the miss ratio.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(requests, forKey: .requests)
            try container.encode(hits, forKey: .hits)
            try container.encode(misses, forKey: .misses)
            try container.encode(missRatio, forKey: .missRatio)
        }
    }

    /// The capacity the simulator was made with.
    package let capacity: Int
    /// What the replay counted so far.
    package private(set) var result = Result()
    /// Cost currently stored.
    package private(set) var occupied = 0

    private let policy: any SlotEvictionPolicy
    private var table = SlotTable<String>()
    /// Each slot's size, indexed like the table's slots.
    private var sizes: [Int] = []

    /// `capacity` is in the unit of the sizes given to `request` (1 per key when sizes are not known).
    package init(factory: any EvictionPolicyFactory, capacity: Int) {
        self.capacity = capacity
        policy = factory.slotPolicy(capacity: capacity)
    }

    /// Keys stored now.
    package var count: Int { table.count }

    /// Whether `key` is stored now.
    package func contains(_ key: String) -> Bool { table.slot(for: key) != nil }

    /// Replays one request; returns true on a hit.
    @discardableResult
    package mutating func request(_ key: String, size: Int = 1) -> Bool {
        result.requests += 1
        let hash = key.hashValue
        if let slot = table.slot(for: key, hash: hash) {
            result.hits += 1
            policy.access(slot)
            return true
        }
        result.misses += 1
        let size = max(size, 0)
        guard size <= capacity else { return false }
        while occupied + size > capacity, let victim = policy.evict() {
            release(victim)
        }
        let slot = table.insert(key, hash: hash)
        if slot < sizes.count { sizes[slot] = size } else { sizes.append(size) }
        occupied += size
        // A hash that is the same in every run (Swift's own is seeded per process), so replays repeat.
        policy.insert(slot, keyHash: Self.stableHash(key), cost: size)
        return false
    }

    private mutating func release(_ slot: Int) {
        guard table.removeSlot(slot) != nil else { return }
        occupied -= sizes[slot]
    }

    /// FNV-1a over the key's UTF-8 bytes.
    static func stableHash(_ key: String) -> Int {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in key.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return Int(bitPattern: UInt(hash))
    }
}
