import Foundation
import Synchronization
import TroveCore
import TroveDiskCache

/// Remembers URLs that failed for a lasting reason (404, 410, bytes that are not an image) so they fail
/// fast for a while instead of hitting the origin again. Transient failures are never recorded.
/// With a cache directory the memory persists as expiring entries in its own small store
/// (`<cache>/failed-urls/`, apart from the data), so a second process (a second `trove prefetch` run)
/// fails fast too. The store is opened only once a failure is persisted or one is there to read, so a
/// memory-only run (`CachePolicy.memoryOnly`, whose failures stay in the process) creates no file.
final class FailureMemory: Sendable {
    private let ttl: Duration
    private let storeDirectory: URL?
    private let limits: DiskCacheConfiguration
    /// Nil until opened (see above).
    private let openedStore = Mutex<DiskCache?>(nil)
    private let now: @Sendable () -> ContinuousClock.Instant
    private let records = Mutex<[String: Record]>([:])

    /// One remembered failure: why, when, and until when it is remembered.
    private struct Record {
        let cause: String
        let isAboutContent: Bool
        let at: ContinuousClock.Instant
        let until: ContinuousClock.Instant
    }

    /// What `failure(of:)` reports: the cause, whether it is about the bytes (not an image, too large to
    /// decode) rather than about getting them, and how long ago it happened.
    struct Failure: Equatable {
        let cause: String
        let isAboutContent: Bool
        let ago: Duration
    }

    /// Stored before the cause in a persisted entry, so another process knows the kind too.
    private static let contentMark = "content: ", transportMark = "transport: "

    init(
        ttl: Duration, cacheDirectory: URL?,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.ttl = ttl
        self.now = now
        var limits = DiskCacheConfiguration()
        limits.byteLimit = 8 << 20
        limits.countLimit = 20_000
        // Entries carry their own expiry; an answer's lifetime may outlast the configured TTL.
        limits.maxAge = max(ttl, .seconds(7 * 24 * 3600))
        self.limits = limits
        storeDirectory = cacheDirectory.map { Self.storeDirectory(in: $0) }
    }

    /// The persisted store: opened (and with `creating`, made) on first use. Nil without a cache directory,
    /// when it does not exist and is not to be made, or when it cannot be opened: then the memory is per
    /// process, and the data cache works either way.
    private func store(creating: Bool) -> DiskCache? {
        guard let storeDirectory else { return nil }
        return openedStore.withLock { opened in
            if let opened { return opened }
            guard creating || FileManager.default.fileExists(atPath: storeDirectory.path) else { return nil }
            opened = try? DiskCache(directory: storeDirectory, configuration: limits)
            return opened
        }
    }

    /// Records the failure when it is lasting; returns whether it did. With `persists` false it is kept in
    /// this process only (a memory-only request writes nothing to disk). `lifetime`, when given, replaces
    /// the configured TTL: the failed answer's own freshness (zero: it is stale already, so not remembered).
    /// `lasting`, when given, replaces the error's own `isLasting` (`FreshnessPolicy.remembers` also weighs
    /// the failed answer's headers).
    @discardableResult
    func record(
        _ error: any Error, forKey key: String, persists: Bool = true, lifetime: Duration? = nil,
        lasting: Bool? = nil
    ) async -> Bool {
        let ttl = ttl > .zero ? lifetime ?? ttl : .zero
        guard ttl > .zero, let error = error as? TroveError, lasting ?? error.isLasting else { return false }
        let at = now()
        let isAboutContent = Self.isAboutContent(error)
        records.withLock {
            $0[key] = Record(cause: error.cause, isAboutContent: isAboutContent, at: at, until: at + ttl)
        }
        let metadata = DiskEntryMetadata(
            contentType: "text/plain", expires: Date().addingTimeInterval(ttl.timeInterval))
        let payload = (isAboutContent ? Self.contentMark : Self.transportMark) + error.cause
        // Written before the failure is reported, so another process already fails fast.
        guard persists else { return true }
        _ = try? await store(creating: true)?.storeNow(Data(payload.utf8), forKey: key, metadata: metadata)
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
            return Failure(cause: record.cause, isAboutContent: record.isAboutContent, ago: now - record.at)
        }
        if let remembered { return remembered }
        // No process has persisted a failure here (the usual case): no read for the miss.
        guard let diskCache = store(creating: false), !diskCache.holdsNoEntries else { return nil }
        // Expired entries read as misses, so presence alone means "still failing"; the entry's date says when.
        guard let entry = try? await diskCache.entry(forKey: key) else { return nil }
        let ago = Date().timeIntervalSince(entry.metadata.created)
        let payload = String(decoding: entry.data, as: UTF8.self)
        let isAboutContent = payload.hasPrefix(Self.contentMark)
        let cause =
            payload.hasPrefix(Self.contentMark)
            ? String(payload.dropFirst(Self.contentMark.count))
            : payload.hasPrefix(Self.transportMark) ? String(payload.dropFirst(Self.transportMark.count)) : payload
        return Failure(cause: cause, isAboutContent: isAboutContent, ago: .milliseconds(Int(max(0, ago) * 1000)))
    }

    /// Failures about the bytes themselves, which only a pipeline that decodes cares about.
    private static func isAboutContent(_ error: TroveError) -> Bool {
        switch error {
        case .unsupportedFormat, .noDecoder, .decodingFailed, .imageTooLarge, .tooManyFrames, .tooLargeToDecode: true
        default: false
        }
    }

    /// Forgets the failure of `key`; returns whether one was remembered (in this process or on disk).
    @discardableResult
    func forget(_ key: String) async -> Bool {
        let inMemory = records.withLock { $0.removeValue(forKey: key) } != nil
        let onDisk = (try? await store(creating: false)?.removeEntry(forKey: key)) ?? false
        return inMemory || onDisk
    }

    /// Where the failures of a cache directory are kept.
    static func storeDirectory(in cacheDirectory: URL) -> URL {
        cacheDirectory.appendingPathComponent("failed-urls", isDirectory: true)
    }

    /// Forgets the failures persisted in `cacheDirectory`: all of them, or those recorded before `date`.
    /// Returns how many; a directory that never remembered one is left as it is.
    static func removeAll(in cacheDirectory: URL, recordedBefore date: Date? = nil) async throws -> Int {
        let store = storeDirectory(in: cacheDirectory)
        guard FileManager.default.fileExists(atPath: store.path) else { return 0 }
        let cache = try DiskCache(directory: store)
        if let date { return try await cache.removeEntries(createdBefore: date) }
        await cache.waitForIndex()
        return try await cache.removeAll()
    }
}
