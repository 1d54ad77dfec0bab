import Foundation

/// One entry as `DiskCache.listing()` reports it (the lines of `trove cache list`), from the index.
package struct DiskCacheListing: Sendable, Equatable {
    /// The entry's full cache key.
    package var key: String
    /// What the entry file takes on disk, header included.
    package var bytes: Int
    /// Whether the payload is stored compressed.
    package var compressed: Bool
    /// When the bytes were fetched or last revalidated.
    package var created: Date
    /// When the entry stops being fresh; nil: only `maxAge` applies.
    package var expires: Date?

    /// A listing line from its fields.
    package init(key: String, bytes: Int, compressed: Bool, created: Date, expires: Date?) {
        self.key = key
        self.bytes = bytes
        self.compressed = compressed
        self.created = created
        self.expires = expires
    }
}

extension DiskCache {
    /// The unexpired entries the index holds, sorted by key (waits for the open-time scan).
    package func listing() async -> [DiskCacheListing] {
        await waitForIndex()
        let now = Date()
        let entries = state.withLock { state in
            state.index.records.values
                .filter { !isExpired(created: $0.created, expires: $0.expires, now: now) }
                .map {
                    DiskCacheListing(
                        key: $0.key, bytes: $0.bytes, compressed: $0.compressed,
                        created: $0.created, expires: $0.expires)
                }
        }
        return entries.sorted { $0.key < $1.key }
    }
}
