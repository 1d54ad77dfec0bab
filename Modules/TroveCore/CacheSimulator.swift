/// Replays requests through an eviction policy the way a reference cache simulator (libCacheSim)
/// does: a request for a key the cache holds is a hit; any other request is a miss, the first one
/// for a key included, and stores the key after evicting until its size fits. A key larger than the
/// whole capacity is counted as a miss and never stored. `trove sim` and the policy tests use this.
public struct CacheSimulator {
    /// What a replay counted.
    public struct Result: Sendable, Equatable, Codable {
        public var requests = 0
        public var hits = 0
        public var misses = 0
        public var missRatio: Double { requests == 0 ? 0 : Double(misses) / Double(requests) }

        public init() {}

        private enum CodingKeys: String, CodingKey { case requests, hits, misses, missRatio }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            requests = try container.decode(Int.self, forKey: .requests)
            hits = try container.decode(Int.self, forKey: .hits)
            misses = try container.decode(Int.self, forKey: .misses)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(requests, forKey: .requests)
            try container.encode(hits, forKey: .hits)
            try container.encode(misses, forKey: .misses)
            try container.encode(missRatio, forKey: .missRatio)
        }
    }

    public let capacity: Int
    public private(set) var result = Result()
    /// Cost currently stored.
    public private(set) var occupied = 0

    private let policy: any SlotEvictionPolicy
    private var slots: [String: Int] = [:]
    private var sizes: [Int] = []
    private var keys: [String?] = []
    private var freeSlots: [Int] = []

    /// `capacity` is in the unit of the sizes given to `request` (1 per key when sizes are not known).
    public init(factory: any EvictionPolicyFactory, capacity: Int) {
        self.capacity = capacity
        policy = factory.makeSlotPolicy(capacity: capacity)
    }

    /// Keys stored now.
    public var count: Int { slots.count }

    public func contains(_ key: String) -> Bool { slots[key] != nil }

    /// Replays one request; returns true on a hit.
    @discardableResult
    public mutating func request(_ key: String, size: Int = 1) -> Bool {
        result.requests += 1
        if let slot = slots[key] {
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
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = reused
            keys[slot] = key
            sizes[slot] = size
        } else {
            slot = keys.count
            keys.append(key)
            sizes.append(size)
        }
        slots[key] = slot
        occupied += size
        // A hash that is the same in every run (Swift's own is seeded per process), so replays repeat.
        policy.insert(slot, keyHash: Self.stableHash(key), cost: size)
        return false
    }

    private mutating func release(_ slot: Int) {
        guard let key = keys[slot] else { return }
        slots.removeValue(forKey: key)
        keys[slot] = nil
        occupied -= sizes[slot]
        freeSlots.append(slot)
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
