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
    private let records = Mutex<[String: Record]>([:])

    /// One remembered failure: why, when, and until when it is remembered.
    private struct Record {
        let cause: String
        let at: ContinuousClock.Instant
        let until: ContinuousClock.Instant
    }

    /// What `failure(of:)` reports: the cause and how long ago it happened.
    struct Failure: Equatable {
        let cause: String
        let ago: Duration
    }

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
        let at = now()
        records.withLock { $0[key] = Record(cause: error.cause, at: at, until: at + ttl) }
        let metadata = DiskEntryMetadata(contentType: "text/plain", expires: Date().addingTimeInterval(ttl.timeInterval))
        _ = try? await diskCache?.store(Data(error.cause.utf8), forKey: key, metadata: metadata)
        return true
    }

    /// The lasting failure remembered for the key within the TTL, or nil.
    func failure(of key: String) async -> Failure? {
        let now = now()
        let remembered = records.withLock { records -> Failure? in
            guard let record = records[key] else { return nil }
            guard record.until > now else {
                records.removeValue(forKey: key)
                return nil
            }
            return Failure(cause: record.cause, ago: now - record.at)
        }
        if let remembered { return remembered }
        // Expired entries read as misses, so presence alone means "still failing"; the entry's date says when.
        guard let entry = try? await diskCache?.entry(forKey: key) else { return nil }
        let ago = Date().timeIntervalSince(entry.metadata.created)
        return Failure(cause: String(decoding: entry.data, as: UTF8.self), ago: .milliseconds(Int(max(0, ago) * 1000)))
    }

    func forget(_ key: String) async {
        _ = records.withLock { $0.removeValue(forKey: key) }
        _ = try? await diskCache?.removeEntry(forKey: key)
    }
}
