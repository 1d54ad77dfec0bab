import Foundation
import Logging
import Synchronization
import TroveCore
import TroveEviction
import TroveSupport

/// The on-disk store of DESIGN.md section 5: one checked file per entry under `<root>/entries/`, written to
/// `<root>/tmp/` and renamed into place, so a reader sees the old entry or the new one, never half of one.
/// Every read checks the header, the full key and the length, and the payload's CRC as
/// `configuration.payloadVerification` says; a damaged file is deleted, counted, and reads as a miss.
/// Limits are enforced through an in-memory index built by a background scan at open.
/// Stores are write-behind: `store` queues the entry and returns, one writer writes the queue, reads see
/// queued entries, and `flush()` waits for the queue; `storeNow` writes before it returns.
/// All blocking file work runs on the cache's own dispatch queue, never on the cooperative pool.
public final class DiskCache: Sendable {
    /// The cache's root: entries live under `entries/`, writes in progress under `tmp/`.
    public let directory: URL
    /// The limits and behaviour it was opened with.
    public let configuration: DiskCacheConfiguration
    /// Names entry files after keys; opening a directory written with another hasher refiles its entries.
    package let hasher: any KeyHasher
    let compressor: any Compressor
    /// Decompressors by the id stored in entry headers.
    let decompressors: [UInt8: any Compressor]
    let layout: CacheLayout
    let io = IOQueue(label: "trove.diskcache.io")
    /// Every read and change of a file goes through here (the fault-injection seam).
    let files: FileOps
    let state: Mutex<CacheState>
    /// Stores accepted but not yet written.
    let writes: WriteBehindQueue
    /// Streamed entries whose commit runs in the background (`DiskEntryWriter.commit`).
    let commits = PendingCommits()
    /// Where a failed write-behind store is reported (its caller has already returned).
    let logger: Logger
    /// How long ago a file must have last changed before a checked read lets later reads of it skip the
    /// payload checksum (see `FileVersion.isSettled`); tests shorten it.
    let unchangedFileGrace: TimeInterval
    /// Entry file names and paths by key: working them out (SHA-256, hex, the path) cost a 64 KiB read hit
    /// about a sixteenth of its time, and the same keys are read over and over. At most 4096 keys of at
    /// most 1 KiB each (`longestRememberedKey`): under 6 MB, and about 1.5 MB for URL-sized keys.
    let locations = BoundedMemo<String, EntryLocation>(capacity: 4096)
    /// Payload checksums computed by reads and `verify` (tests count them).
    let payloadChecksums = Atomic<Int>(0)
    /// Told of every entry put in place (`observeStores`).
    let storeObservers = Mutex<[@Sendable (String, Int) -> Void]>([])

    /// Opens (creating if needed) a cache directory. Returns at once: the index is built in the background,
    /// and until it is complete a lookup simply checks the entry's file.
    public convenience init(
        directory: URL, configuration: DiskCacheConfiguration = .init(),
        hasher: any KeyHasher = SHA256Hasher(), compressor: any Compressor = NoCompressor(),
        knownCompressors: [any Compressor] = [],
        evictionPolicy: any EvictionPolicyFactory = LRUPolicyFactory(),
        logger: Logger = Logger(label: "trove.diskcache")
    ) throws {
        try self.init(
            directory: directory, configuration: configuration, hasher: hasher, compressor: compressor,
            knownCompressors: knownCompressors, evictionPolicy: evictionPolicy, fileSystem: PosixFileSystem(),
            unchangedFileGrace: 3, logger: logger)
    }

    /// A level the compressor refuses would otherwise show only as every entry stored uncompressed: try it
    /// once, on a few bytes, when the cache opens.
    private static func checkLevel(of compressor: any Compressor, _ level: Int?) throws {
        guard let level, compressor.id != 0 else { return }
        do {
            _ = try compressor.compress(Data("trove".utf8), level: level)
        } catch {
            var reason = "\(error)"
            if case let .invalidConfiguration(text)? = error as? TroveError { reason = text }
            throw TroveError.invalidConfiguration(
                "compression level \(level) does not work with the '\(compressor.name)' compressor (\(reason)); "
                    + "give a level it accepts, or none for its default")
        }
    }

    /// As the public initializer, with every file operation going through `fileSystem` (tests inject faults).
    init(
        directory: URL, configuration: DiskCacheConfiguration, hasher: any KeyHasher, compressor: any Compressor,
        knownCompressors: [any Compressor], evictionPolicy: any EvictionPolicyFactory,
        fileSystem: any FileSystemCalls, unchangedFileGrace: TimeInterval = 3,
        logger: Logger = Logger(label: "trove.diskcache")
    ) throws {
        try configuration.validate()
        var table: [UInt8: any Compressor] = [:]
        for candidate in [NoCompressor()] + knownCompressors + [compressor] {
            if let existing = table[candidate.id], existing.name != candidate.name {
                throw TroveError.invalidConfiguration(
                    "compressors '\(existing.name)' and '\(candidate.name)' share id \(candidate.id); each needs its own id"
                )
            }
            table[candidate.id] = candidate
        }
        try Self.checkLevel(of: compressor, configuration.compressionLevel)
        self.directory = directory
        self.configuration = configuration
        self.hasher = hasher
        self.compressor = compressor
        self.decompressors = table
        self.layout = CacheLayout(directory: directory)
        self.files = FileOps(calls: fileSystem)
        self.unchangedFileGrace = unchangedFileGrace
        self.writes = WriteBehindQueue(byteLimit: configuration.writeQueueByteLimit)
        self.logger = logger
        for path in [layout.root, layout.entries, layout.temporary] {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw TroveError.ioFailed(
                    path: path, reason: "cannot create the cache directory: \(error.localizedDescription)")
            }
        }
        let policy = evictionPolicy.make(capacity: configuration.byteLimit, keyType: String.self)
        var initial = CacheState(index: DiskIndex(policy: policy))
        let manifest = CacheManifest(formatVersion: Int(EntryHeader.version), hasher: hasher.name)
        var pending: CacheManifest? = manifest
        if let previous = CacheManifest.read(in: layout) {
            initial.refiling = previous.hasher != manifest.hasher
            if previous == manifest { pending = nil }
        } else if ((try? FileManager.default.contentsOfDirectory(atPath: layout.entries)) ?? []).isEmpty {
            // A new directory: written now, not after the scan, so that a process ending first (a quick
            // `trove get`) still tells the next opener which hasher named its entries.
            manifest.write(in: layout)
            pending = nil
        } else {
            // Entries but no manifest (lost, or its opener ended before writing it): their hasher is
            // unknown, so lookups wait for the scan to re-file whatever this hasher would not find.
            initial.refiling = true
        }
        state = Mutex(initial)
        startOpening(writing: pending)
    }
}
