/// How a request uses the caches (what older libraries call request types).
public enum CachePolicy: String, Sendable, Codable, CaseIterable {
    /// Cached result if there is one, else load.
    case useCache
    /// Always fetch, and overwrite what is cached.
    case reloadIgnoringCache
    /// Never touch the network: a miss is an error.
    case cacheOnly
    /// Deliver the cached result at once, then revalidate with the stored validators (If-None-Match,
    /// If-Modified-Since): a 304 only refreshes the entry's dates, a 200 delivers the new result as well.
    case refresh
    /// Like useCache, but nothing is written to disk.
    case memoryOnly
}

/// Where a result came from.
public enum ResultSource: String, Sendable, Codable {
    /// This process's memory cache, its disk cache, or a fetch from the origin.
    case memory, disk, network
    /// The fleet's shared cache tier (Redis), below this process's own disk.
    case shared
}

/// Scheduling priority of a request while it waits for a fetch slot.
public enum RequestPriority: Int, Sendable, Codable, Comparable, CaseIterable {
    /// From `veryLow` (raw value 0) to `veryHigh` (4); the default is `normal`.
    case veryLow = 0, low, normal, high, veryHigh

    /// Orders by raw value: `veryLow` is the lowest.
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
