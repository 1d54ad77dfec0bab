import Foundation

/// One entry as `DiskCache.listing()` reports it (the lines of `trove cache list`), from the index.
public struct DiskCacheListing: Sendable, Equatable {
    /// The entry's full cache key.
    public var key: String
    /// What the entry file takes on disk, header included.
    public var bytes: Int
    /// Whether the payload is stored compressed.
    public var compressed: Bool
    /// When the bytes were fetched or last revalidated.
    public var created: Date
    /// When the entry stops being fresh; nil: only `maxAge` applies.
    public var expires: Date?

    /// A listing line from its fields.
    public init(key: String, bytes: Int, compressed: Bool, created: Date, expires: Date?) {
        self.key = key
        self.bytes = bytes
        self.compressed = compressed
        self.created = created
        self.expires = expires
    }
}

extension DiskCache {
    /// The unexpired entries the index holds, sorted by key (waits for the open-time scan).
    public func listing() async -> [DiskCacheListing] {
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
