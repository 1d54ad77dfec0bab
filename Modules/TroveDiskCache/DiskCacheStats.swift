/// Counts a `DiskCache` reports. `entries`, `bytes` and `compressed` describe what is on disk now;
/// the rest count events since this `DiskCache` was opened.
public struct DiskCacheStats: Sendable, Equatable, Codable {
    /// Entries in the index now.
    public var entries: Int
    /// What the entry files take on disk, headers included.
    public var bytes: Int
    /// Entries whose payload is stored compressed.
    public var compressed: Int
    /// Lookups that returned an entry.
    public var hits: Int
    /// Lookups that returned nothing, corrupt and expired entries included.
    public var misses: Int
    /// Entry files found damaged (and deleted).
    public var corrupt: Int
    /// Entries removed to respect the byte or count limit.
    public var evictions: Int
    /// The configured `byteLimit`.
    public var limitBytes: Int
    /// Write-behind stores whose write failed (a full disk, an I/O error); each is logged too.
    public var failedWrites: Int

    /// Counts as given; all zero by default.
    package init(
        entries: Int = 0, bytes: Int = 0, compressed: Int = 0, hits: Int = 0, misses: Int = 0,
        corrupt: Int = 0, evictions: Int = 0, limitBytes: Int = 0, failedWrites: Int = 0
    ) {
        self.entries = entries
        self.bytes = bytes
        self.compressed = compressed
        self.hits = hits
        self.misses = misses
        self.corrupt = corrupt
        self.evictions = evictions
        self.limitBytes = limitBytes
        self.failedWrites = failedWrites
    }
}
