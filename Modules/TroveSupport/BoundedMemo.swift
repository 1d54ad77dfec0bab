import Synchronization

/// Values worked out from keys, kept so the same key is not worked out twice, up to `capacity` of them.
/// When full it starts over rather than tracking use: for a working set that fits, every lookup after the
/// first is a hit; for one that does not, it costs one computation per lookup, as no memo would.
/// Thread-safe; two threads missing the same key at once both compute it, and either value is right
/// (the values must be pure functions of their keys).
package final class BoundedMemo<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let capacity: Int
    private let values = Mutex<[Key: Value]>([:])

    /// A memo of at most `capacity` values (at least one).
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The value for `key`: the kept one, or `compute(key)`, kept for next time. `compute` runs outside
    /// the lock, and a value it fails to make is not kept.
    package func value(for key: Key, compute: (Key) throws -> Value) rethrows -> Value {
        if let value = values.withLock({ $0[key] }) { return value }
        let value = try compute(key)
        values.withLock { values in
            if values.count >= capacity { values.removeAll(keepingCapacity: true) }
            values[key] = value
        }
        return value
    }

    /// How many values are kept now.
    package var count: Int { values.withLock { $0.count } }
}
