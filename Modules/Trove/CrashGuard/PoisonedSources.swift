import Foundation
import Logging
import Synchronization
import TroveCore
import TroveDiskCache

/// Sources that crashed a process while it worked on them, refused for a while so that one bad file cannot
/// take down a server, then the next one a client retries on ("query of death"). A mark is kept in memory,
/// in a small store of its own in the cache directory (`<cache>/poisoned-sources/`, so a restarted process
/// still refuses it) and in the shared tier when there is one (so the rest of the fleet refuses it before
/// decoding it). A source that was only in flight when a process was killed without a fatal signal
/// (SIGKILL, the OOM killer) gets a strike; a second strike marks it.
final class PoisonedSources: Sendable {
    /// What a mark says: until when, and why.
    struct Mark: Sendable, Equatable {
        var until: Date
        /// "SIGILL", or "killed twice while in flight".
        var cause: String
        /// A strike, not yet a mark: refused only once a second strike comes.
        var isStrike: Bool
    }

    /// What this process last read about a source, and when: marks are read again after
    /// `Self.recheckInterval`, so one another process made (the fleet) or removed (`trove cache forget`)
    /// counts here within that time, while a stream of requests costs one read per source per interval.
    private struct Known {
        var mark: Mark?
        var checked: ContinuousClock.Instant
    }

    /// How long what was read about a source stands before it is read again.
    static let recheckInterval: Duration = .seconds(5)
    /// Sources remembered at most; past it the oldest readings are dropped.
    private static let knownLimit = 10_000

    private let ttl: Duration
    private let store: DiskCache?
    private let shared: SharedTierAccess?
    private let logger: Logger
    private let known = Mutex<[String: Known]>([:])

    init(ttl: Duration, cacheDirectory: URL?, shared: SharedTierAccess?, logger: Logger) {
        self.ttl = ttl
        self.shared = shared
        self.logger = logger
        store = cacheDirectory.flatMap { try? Self.openStore(in: $0, ttl: ttl) }
    }

    /// The marks' own small store in a cache directory.
    private static func openStore(in cacheDirectory: URL, ttl: Duration) throws -> DiskCache {
        var limits = DiskCacheConfiguration()
        limits.byteLimit = 1 << 20
        limits.countLimit = 10_000
        limits.maxAge = ttl
        return try DiskCache(directory: storeDirectory(in: cacheDirectory), configuration: limits)
    }

    static func storeDirectory(in cacheDirectory: URL) -> URL {
        cacheDirectory.appendingPathComponent("poisoned-sources", isDirectory: true)
    }

    /// Forgets `name`'s mark in a cache directory and the shared tier without a journal (`trove cache
    /// forget`, by a process that is not guarding crashes itself); returns whether there was one.
    static func forget(_ name: String, in cacheDirectory: URL?, shared: SharedTierAccess?) async -> Bool {
        var found = false
        if let cacheDirectory, FileManager.default.fileExists(atPath: storeDirectory(in: cacheDirectory).path),
            let store = try? openStore(in: cacheDirectory, ttl: .seconds(3600)),
            (try? await store.removeEntry(forKey: key(for: name))) == true
        {
            found = true
        }
        if let shared, await shared.remove(forKey: key(for: name)) { found = true }
        return found
    }

    /// The key a mark has in the local store and the shared tier: NUL and a tag no cache key uses.
    static func key(for name: String) -> String {
        "\u{0}z\(name.utf8.count):\(name)"
    }

    /// Marks what the previous process's journal says: the crashed source at once, the interrupted ones
    /// with a strike each.
    func record(_ recovered: CrashJournal.Recovered) async {
        for crashed in recovered.crashed { await mark(crashed.source, cause: Self.signalName(crashed.signal)) }
        for name in recovered.interrupted { await strike(name) }
    }

    /// The mark refusing `name` now, or nil: from what was read within the last `recheckInterval`, else
    /// from the local store and then the shared tier (another server's crash).
    func mark(of name: String, now: Date = Date()) async -> Mark? {
        let clock = ContinuousClock.now
        if let known = known.withLock({ $0[name] }), clock - known.checked < Self.recheckInterval {
            return Self.refusing(known.mark, now: now)
        }
        let key = Self.key(for: name)
        var mark = (try? await store?.entry(forKey: key)).flatMap { Self.mark(from: $0) }
        if Self.refusing(mark, now: now) == nil, let shared, let entry = try? await shared.entry(forKey: key),
            let published = Self.mark(from: entry)
        {
            mark = published
        }
        remember(mark, for: name, at: clock)
        return Self.refusing(mark, now: now)
    }

    /// `mark` when it refuses now: not a strike, not expired.
    private static func refusing(_ mark: Mark?, now: Date) -> Mark? {
        guard let mark, !mark.isStrike, mark.until > now else { return nil }
        return mark
    }

    private func remember(_ mark: Mark?, for name: String, at clock: ContinuousClock.Instant) {
        known.withLock { known in
            if known.count >= Self.knownLimit {
                known = known.filter { clock - $0.value.checked < Self.recheckInterval }
            }
            known[name] = Known(mark: mark, checked: clock)
        }
    }

    /// Forgets `name`'s mark or strike everywhere; returns whether there was one here or in the shared tier.
    func forget(_ name: String) async -> Bool {
        let key = Self.key(for: name)
        var found = known.withLock { $0.removeValue(forKey: name) }?.mark != nil
        if (try? await store?.removeEntry(forKey: key)) == true { found = true }
        if let shared, await shared.remove(forKey: key) { found = true }
        return found
    }

    private func mark(_ name: String, cause: String) async {
        let mark = Mark(until: Date().addingTimeInterval(ttl.timeInterval), cause: cause, isStrike: false)
        logger.error(
            "a source crashed this server while it was being worked on; refusing it",
            metadata: ["source": .redacted(name), "cause": "\(cause)", "until": "\(mark.until)"])
        await put(mark, for: name, publishing: true)
    }

    private func strike(_ name: String) async {
        var earlier = known.withLock { $0[name] }?.mark
        if earlier == nil, let entry = try? await store?.entry(forKey: Self.key(for: name)) {
            earlier = Self.mark(from: entry)
        }
        if let earlier, earlier.until > Date() {
            await mark(name, cause: "killed twice while in flight")
            return
        }
        logger.warning(
            "a source was in flight when this server was killed; a second time refuses it",
            metadata: ["source": .redacted(name)])
        let strike = Mark(
            until: Date().addingTimeInterval(ttl.timeInterval), cause: "killed while in flight", isStrike: true)
        await put(strike, for: name, publishing: false)
    }

    private func put(_ mark: Mark, for name: String, publishing: Bool) async {
        remember(mark, for: name, at: .now)
        let key = Self.key(for: name)
        let metadata = DiskEntryMetadata(contentType: mark.isStrike ? "strike" : "mark", expires: mark.until)
        let payload = Data(mark.cause.utf8)
        _ = try? await store?.storeNow(payload, forKey: key, metadata: metadata)
        if publishing, let shared {
            try? await shared.store(payload, forKey: key, metadata: metadata, ttl: ttl)
        }
    }

    private static func mark(from entry: DiskEntry) -> Mark? {
        guard let until = entry.metadata.expires else { return nil }
        return Mark(
            until: until, cause: String(decoding: entry.data, as: UTF8.self),
            isStrike: entry.metadata.contentType == "strike")
    }

    /// "SIGILL" and the like, for the log and the error.
    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGILL: "SIGILL"
        case SIGTRAP: "SIGTRAP"
        case SIGABRT: "SIGABRT"
        case SIGBUS: "SIGBUS"
        case SIGFPE: "SIGFPE"
        case SIGSEGV: "SIGSEGV"
        default: "signal \(signal)"
        }
    }
}
