/// Maps keys to small integer slots: the key -> slot index every slot-level owner needs (the memory
/// cache, the keyed policies, the simulator). A new key gets the most recently freed slot, else the next
/// unused one, so slots stay dense and the owner's slot-indexed arrays (and the policy's) stay small.
///
/// Open addressing with linear probing over 8-byte buckets (a 32-bit tag of the hash and the slot),
/// deleted by backward shift, so no tombstones build up. The caller passes the key's hash, so an
/// owner that already hashed the key (to pick a shard, say) does not hash it twice. Not thread-safe.
@usableFromInline package struct SlotTable<Key: Hashable> {
    @usableFromInline var buckets: [SlotTableBucket]
    @usableFromInline var mask: Int
    /// The key in each slot; nil for a free slot.
    @usableFromInline var keys: [Key?] = []
    /// The hash each slot's key was stored with, to find its bucket again when the slot is freed.
    @usableFromInline var hashes: [Int] = []
    @usableFromInline var freeSlots: [Int32] = []
    @usableFromInline var storedCount = 0

    /// Keys stored now.
    @inlinable
    package var count: Int { storedCount }

    /// An empty table with buckets for about `minimumCapacity` keys before it grows.
    package init(minimumCapacity: Int = 0) {
        var size = 16
        while size < 2 * minimumCapacity { size <<= 1 }
        buckets = Array(repeating: .empty, count: size)
        mask = size - 1
    }

    /// One more than the highest slot handed out: the size slot-indexed arrays need.
    @inlinable
    package var slotCapacity: Int { keys.count }

    @inlinable
    static func tag(_ hash: Int) -> UInt32 { UInt32(truncatingIfNeeded: UInt(bitPattern: hash) &>> 16) }

    /// The slot holding `key`, whose hash is `hash` (`key.hashValue`); nil when absent.
    @inlinable
    package func slot(for key: Key, hash: Int) -> Int? {
        let tag = Self.tag(hash)
        var index = hash & mask
        while true {
            let bucket = buckets[index]
            if bucket.slot < 0 { return nil }
            if bucket.tag == tag, keys[Int(bucket.slot)] == key { return Int(bucket.slot) }
            index = (index &+ 1) & mask
        }
    }

    /// The slot holding `key`; nil when absent.
    @inlinable
    package func slot(for key: Key) -> Int? { slot(for: key, hash: key.hashValue) }

    /// The key in `slot`; nil for a free or never used slot.
    @inlinable
    package func key(at slot: Int) -> Key? { slot < keys.count ? keys[slot] : nil }

    /// The hash `slot`'s key was stored with (meaningful only while the slot holds a key).
    @inlinable
    package func hash(at slot: Int) -> Int { hashes[slot] }

    /// Stores `key` (which must be absent) with its hash and returns its new slot.
    @inlinable
    package mutating func insert(_ key: Key, hash: Int) -> Int {
        if (storedCount + 1) * 2 > buckets.count { grow() }
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = Int(reused)
            keys[slot] = key
            hashes[slot] = hash
        } else {
            slot = keys.count
            precondition(slot < Int(Int32.max), "slot table is full")
            keys.append(key)
            hashes.append(hash)
        }
        place(Int32(truncatingIfNeeded: slot), hash: hash)
        storedCount += 1
        return slot
    }

    /// Stores `key` (which must be absent) and returns its new slot.
    @inlinable
    package mutating func insert(_ key: Key) -> Int { insert(key, hash: key.hashValue) }

    /// Forgets `key`; returns the slot it had, which is free from now on. Nil when absent.
    @inlinable @discardableResult
    package mutating func remove(_ key: Key, hash: Int) -> Int? {
        guard let slot = slot(for: key, hash: hash) else { return nil }
        free(slot)
        return slot
    }

    /// Forgets `key`; returns the slot it had, which is free from now on. Nil when absent.
    @inlinable @discardableResult
    package mutating func remove(_ key: Key) -> Int? { remove(key, hash: key.hashValue) }

    /// Frees `slot` and returns the key it held; nil (and no change) when it held none.
    @inlinable @discardableResult
    package mutating func removeSlot(_ slot: Int) -> Key? {
        guard slot >= 0, slot < keys.count, let key = keys[slot] else { return nil }
        free(slot)
        return key
    }

    /// Forgets every key; slots start again at 0. Keeps the buckets' storage.
    @inlinable
    package mutating func removeAll() {
        for index in buckets.indices { buckets[index] = .empty }
        keys.removeAll(keepingCapacity: true)
        hashes.removeAll(keepingCapacity: true)
        freeSlots.removeAll(keepingCapacity: true)
        storedCount = 0
    }

    /// Puts `slot` in the first empty bucket of its hash's probe sequence.
    @inlinable
    mutating func place(_ slot: Int32, hash: Int) {
        var index = hash & mask
        while buckets[index].slot >= 0 { index = (index &+ 1) & mask }
        buckets[index] = SlotTableBucket(tag: Self.tag(hash), slot: slot)
    }

    /// Removes `slot` (which holds a key) from its bucket, shifting later buckets of the same run back
    /// so every key stays reachable from its home bucket, and puts the slot on the free list.
    @inlinable
    mutating func free(_ slot: Int) {
        var hole = hashes[slot] & mask
        while buckets[hole].slot != Int32(truncatingIfNeeded: slot) { hole = (hole &+ 1) & mask }
        var next = (hole &+ 1) & mask
        while buckets[next].slot >= 0 {
            let home = hashes[Int(buckets[next].slot)] & mask
            // The entry at `next` may fill the hole if the hole lies on its probe path (home...next).
            if (next &- home) & mask >= (next &- hole) & mask {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next &+ 1) & mask
        }
        buckets[hole] = .empty
        keys[slot] = nil
        freeSlots.append(Int32(truncatingIfNeeded: slot))
        storedCount -= 1
    }

    /// Doubles the buckets and re-places every stored key.
    @inlinable
    mutating func grow() {
        let size = buckets.count * 2
        buckets = Array(repeating: .empty, count: size)
        mask = size - 1
        for slot in keys.indices where keys[slot] != nil {
            place(Int32(truncatingIfNeeded: slot), hash: hashes[slot])
        }
    }
}

/// One bucket of a `SlotTable`: 8 bytes, so a probe touches few cache lines.
@usableFromInline
struct SlotTableBucket: Sendable {
    /// Bits 16..<48 of the key's hash: most non-matching buckets are rejected without reading a key.
    @usableFromInline var tag: UInt32
    /// The slot, or -1 when the bucket is empty.
    @usableFromInline var slot: Int32

    @inlinable static var empty: SlotTableBucket { SlotTableBucket(tag: 0, slot: -1) }

    @inlinable init(tag: UInt32, slot: Int32) {
        self.tag = tag
        self.slot = slot
    }
}

extension SlotTable: Sendable where Key: Sendable {}
