import Foundation
import Synchronization
import TroveCore
import TroveDiskCache

/// Remembers URLs that failed for a lasting reason (404, 410, bytes that are not an image) so they fail
/// fast for a while instead of hitting the origin again. Transient failures are never recorded.
/// With a cache directory the memory persists as expiring entries in its own small store
/// (`<cache>/failed-urls/`, apart from the data), so a second process (a second `trove prefetch` run)
/// fails fast too.
final class FailureMemory: Sendable {
    private let ttl: Duration
    private let diskCache: DiskCache?
    private let now: @Sendable () -> ContinuousClock.Instant
    private let records = Mutex<[String: ContinuousClock.Instant]>([:])

    init(ttl: Duration, cacheDirectory: URL?,
         now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.ttl = ttl
        self.now = now
        var limits = DiskCacheConfiguration()
        limits.byteLimit = 8 << 20
        limits.countLimit = 20_000
        limits.maxAge = ttl
        // Without a store the memory is per process; the data cache works either way.
        diskCache = cacheDirectory.flatMap {
            try? DiskCache(directory: $0.appendingPathComponent("failed-urls"), configuration: limits)
        }
    }

    /// Records the failure when it is lasting; returns whether it did.
    @discardableResult
    func record(_ error: any Error, forKey key: String) async -> Bool {
        guard ttl > .zero, let error = error as? TroveError, error.isLasting else { return false }
        records.withLock { $0[key] = now() + ttl }
        let seconds = Double(ttl.components.seconds) + Double(ttl.components.attoseconds) / 1e18
        let metadata = DiskEntryMetadata(contentType: "text/plain", expires: Date().addingTimeInterval(seconds))
        _ = try? await diskCache?.store(Data(error.description.utf8), forKey: key, metadata: metadata)
        return true
    }

    /// Whether the key failed for a lasting reason within the TTL.
    func hasFailed(_ key: String) async -> Bool {
        let now = now()
        let remembered = records.withLock { records -> Bool in
            guard let until = records[key] else { return false }
            if until <= now { records.removeValue(forKey: key) }
            return until > now
        }
        if remembered { return true }
        // Expired entries read as misses, so presence alone means "still failing".
        return (try? await diskCache?.entry(forKey: key)) != nil
    }

    func forget(_ key: String) async {
        _ = records.withLock { $0.removeValue(forKey: key) }
        _ = try? await diskCache?.removeEntry(forKey: key)
    }
}
