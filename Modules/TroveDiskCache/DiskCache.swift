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
        let previous = CacheManifest.read(in: layout)
        initial.refiling = previous.map { $0.hasher != manifest.hasher } ?? false
        state = Mutex(initial)
        startOpening(writing: previous == manifest ? nil : manifest)
    }

    // MARK: Reading

    /// The verified entry for `key`, or nil on a miss (absent, expired, damaged, or another key's file).
    /// A hit whose file is in the kernel's caches, or a miss the kernel's lookup cache already knows, is
    /// answered on the caller's thread by calls that cannot wait for the disk (`ReadMode.cachedOnly`),
    /// sparing the hop to the I/O queue; everything else, damage included, is read on the queue.
    /// With `includingStale`, an entry past its `expires` date but within `staleRetention` is returned too
    /// (its metadata says it is stale); otherwise it reads as a miss.
    /// An entry whose store is still queued is answered from the queue.
    package func entry(forKey key: String, includingStale: Bool = false) async throws -> DiskEntry? {
        if let queued = writes.queued(key) { return queuedEntry(queued, includingStale: includingStale) }
        await waitForCommit(ofKey: key)
        if state.withLock({ $0.refiling }) { await waitForIndex() }
        do {
            return try readEntry(forKey: key, mode: .cachedOnly, includingStale: includingStale)
        } catch {
            // WouldBlock, or anything else: the blocking read finds out and reports it.
        }
        return try await io.run { try self.readEntry(forKey: key, mode: .blocking, includingStale: includingStale) }
    }

    /// A queued store read as an entry: the latest store of the key wins over its file, even when expired.
    private func queuedEntry(_ write: WriteBehindQueue.Write, includingStale: Bool) -> DiskEntry? {
        let usable = isReadable(write.metadata, includingStale: includingStale, now: Date())
        state.withLock { state in
            if usable { state.hits += 1 } else { state.misses += 1 }
        }
        guard usable else { return nil }
        return DiskEntry(
            key: write.key, data: write.data, metadata: write.metadata, storedBytes: write.data.count,
            compressed: false)
    }

    /// Whether an entry with this metadata reads as a hit: not past keeping, and fresh unless stale ones count.
    private func isReadable(_ metadata: DiskEntryMetadata, includingStale: Bool, now: Date) -> Bool {
        !isExpired(created: metadata.created, expires: metadata.expires, now: now)
            && (includingStale || metadata.expires.map { $0 > now } ?? true)
    }

    /// The verified bytes of `key`'s entry, or nil on a miss (a stale entry is a miss); see `entry(forKey:)`.
    public func data(forKey key: String) async throws -> Data? {
        try await entry(forKey: key)?.data
    }

    /// The metadata of `key`'s entry (with its key, as stored), or nil on a miss, read without one byte of the
    /// payload: the header alone is read and checked (its CRC, the key, the file's length), the payload's
    /// CRC is not. For what is kept beside an entry's bytes (its placeholders) when the bytes are not wanted.
    /// `includingStale` as in `entry(forKey:)`; a queued store answers from the queue. Hits and misses are not
    /// counted: no entry was delivered.
    package func metadata(forKey key: String, includingStale: Bool = false) async throws -> DiskEntryMetadata? {
        if let queued = writes.queued(key) {
            return isReadable(queued.metadata, includingStale: includingStale, now: Date()) ? queued.metadata : nil
        }
        await waitForCommit(ofKey: key)
        if state.withLock({ $0.refiling }) { await waitForIndex() }
        do {
            return try readMetadata(forKey: key, mode: .cachedOnly, includingStale: includingStale)
        } catch {
            // WouldBlock, or anything else: the blocking read finds out and reports it.
        }
        return try await io.run {
            try self.readMetadata(forKey: key, mode: .blocking, includingStale: includingStale)
        }
    }

    private func readMetadata(forKey key: String, mode: ReadMode, includingStale: Bool) throws -> DiskEntryMetadata? {
        let (name, path) = location(forKey: key).parts
        let now = Date()
        switch try EntryFile.read(at: path, payload: false, files: files, mode: mode, headerBytesOnly: true) {
        case .missing:
            return nil
        case let .corrupt(_, identity):
            discard(name, path: path, identity: identity, corrupt: true, countsAsMiss: false)
            return nil
        case let .valid(header, _, _):
            guard header.key == key else { return nil }
            let metadata = header.metadata
            return isReadable(metadata, includingStale: includingStale, now: now) ? metadata : nil
        }
    }

    /// The file an entry for `key` lives in: `<root>/entries/<2 hex>/<2 hex>/<hash>`.
    package func fileURL(forKey key: String) -> URL {
        URL(fileURLWithPath: location(forKey: key).path)
    }

    func fileName(forKey key: String) -> String {
        location(forKey: key).name
    }

    /// Where `key`'s entry lives: its file name, and the path under `entries/`. Keys up to
    /// `longestRememberedKey` bytes are remembered; a longer one (a URL is the caller's to choose) is worked
    /// out each time, so the memo's size stays bounded.
    func location(forKey key: String) -> EntryLocation {
        func workOut(_ key: String) -> EntryLocation {
            let name = CacheLayout.fileName(forHash: hasher.hash(key))
            return EntryLocation(name: name, path: layout.entryPath(for: name))
        }
        guard key.utf8.count <= Self.longestRememberedKey else { return workOut(key) }
        return locations.value(for: key, compute: workOut)
    }

    /// The longest key (UTF-8 bytes) whose location is remembered.
    static let longestRememberedKey = 1024

    /// In `cachedOnly` mode only a clean hit or a missing file returns; anything else throws `WouldBlock`,
    /// leaving the bookkeeping of damage, expiry and collisions to the blocking read that follows.
    private func readEntry(forKey key: String, mode: ReadMode, includingStale: Bool) throws -> DiskEntry? {
        let (name, path) = location(forKey: key).parts
        let known = state.withLock { $0.index.record(name) }
        // Taken before the file is looked at, so the grace counts from no later than its fstat.
        let now = Date()
        switch try EntryFile.read(at: path, payload: true, files: files, mode: mode, expectedSize: known?.bytes) {
        case .missing:
            state.withLock { state in
                state.misses += 1
                // Removed behind our back (another process): forget it, unless a store just put it back.
                if state.index.record(name) != nil && !files.exists(path) {
                    state.index.remove(name)
                    state.noteChanged(name)
                }
            }
            return nil
        case let .corrupt(_, identity):
            discard(name, path: path, identity: identity, corrupt: true, countsAsMiss: true)
            return nil
        case let .valid(header, storedPayload, file):
            guard header.key == key, let storedPayload else {
                if mode == .cachedOnly { throw WouldBlock() }
                // A hash collision: the file is another key's valid entry. Leave it, report a miss.
                state.withLock { $0.misses += 1 }
                return nil
            }
            if isExpired(created: header.created, expires: header.expires, now: now) {
                if mode == .cachedOnly { throw WouldBlock() }
                discard(name, path: path, identity: file.identity, corrupt: false, countsAsMiss: true)
                return nil
            }
            if !includingStale, let expires = header.expires, expires <= now {
                state.withLock { $0.misses += 1 }  // stale: kept for revalidation, but not a hit
                return nil
            }
            let remembersChecking = configuration.payloadVerification == .whenFileChanges
            let checkedBefore = remembersChecking && known?.verified == file
            guard let data = originalPayload(of: header, stored: storedPayload, checksum: !checkedBefore) else {
                if mode == .cachedOnly { throw WouldBlock() }
                discard(name, path: path, identity: file.identity, corrupt: true, countsAsMiss: true)
                return nil
            }
            let remember = remembersChecking && (checkedBefore || file.isSettled(at: now, grace: unchangedFileGrace))
            let record = IndexRecord(
                key: key, bytes: file.size, compressed: header.compressorID != 0,
                created: header.created, expires: header.expires,
                verified: remember ? file : nil)
            state.withLock { state in
                state.hits += 1
                if let current = state.index.record(name), current.bytes == file.size {
                    state.index.touch(name)
                    // Harmless even if the entry was replaced meanwhile: a new file never shows this version.
                    if remember && !checkedBefore { state.index.markVerified(name, as: file) }
                } else if files.identity(of: path) == file.identity {
                    state.index.upsert(name, record)
                }
                state.noteTouched(name)
            }
            return DiskEntry(
                key: key, data: data, metadata: header.metadata, storedBytes: header.storedLength,
                compressed: header.compressorID != 0)
        }
    }

    /// Decompresses with the compressor the header names and checks the length and (unless `checksum` is
    /// false, for a file version already checked) the CRC; nil if anything is off.
    func originalPayload(of header: EntryHeader, stored: Data, checksum: Bool = true) -> Data? {
        guard let decompressor = decompressors[header.compressorID],
            let data = try? decompressor.decompress(stored, originalLength: header.originalLength),
            data.count == header.originalLength
        else { return nil }
        if checksum {
            payloadChecksums.add(1, ordering: .relaxed)
            guard CRC32.checksum(data) == header.payloadCRC else { return nil }
        }
        return data
    }

    /// Whether an entry is past keeping: its expiry plus the stale retention, or the maximum age.
    func isExpired(created: Date, expires: Date?, now: Date) -> Bool {
        if let expires, expires.addingTimeInterval(configuration.staleRetentionSeconds) <= now { return true }
        return now.timeIntervalSince(created) >= configuration.maxAgeSeconds
    }

    /// Deletes a damaged or expired file, but only if it is still the file that was read (a store may
    /// have renamed a fresh entry over it meanwhile), and counts it.
    /// Returns whether the file was deleted.
    @discardableResult
    func discard(_ name: String, path: String, identity: FileIdentity, corrupt: Bool, countsAsMiss: Bool) -> Bool {
        state.withLock { state in
            if countsAsMiss { state.misses += 1 }
            if corrupt { state.corrupt += 1 }
            guard files.identity(of: path) == identity else { return false }
            files.removeFile(path)
            if corrupt { state.corruptRemovedSinceVerify += 1 }
            state.index.remove(name)
            state.noteChanged(name)
            return true
        }
    }

    // MARK: Writing

    /// Stores `data` under `key` write-behind: queues it and returns without waiting for the disk. Reads of
    /// `key` see it at once; one writer writes the queue in order, a later store of a queued key replacing
    /// it, and `flush()` waits for the queue. When `configuration.writeQueueByteLimit` bytes are queued this
    /// waits for room. A write that fails (`diskFull`, `ioFailed`) is logged and counted in
    /// `DiskCacheStats.failedWrites`, and leaves the previous entry as it was; a crash loses queued stores,
    /// never an entry's integrity. Throws only for an entry no write could store (too large a payload or
    /// header field), before queueing it.
    public func store(_ data: Data, forKey key: String) async throws {
        try await store(data, forKey: key, metadata: DiskEntryMetadata())
    }

    /// As `store(_:forKey:)`, with the entry's metadata (validators, content type, dates) given.
    package func store(_ data: Data, forKey key: String, metadata: DiskEntryMetadata) async throws {
        try checkStorable(data, forKey: key, metadata: metadata)
        await waitForCommit(ofKey: key)
        if await writes.enqueue(.init(key: key, data: data, metadata: metadata)) {
            io.background { [self] in writeQueuedStores() }
        }
    }

    /// Stores `data` under `key` and returns once the entry is on disk, replacing any previous entry (and a
    /// queued store of `key`) atomically. If the write fails (`diskFull`, `ioFailed`) it throws, the
    /// previous entry is left as it was and no partial file remains.
    /// An entry whose file would exceed the byte limit is not kept (and the previous entry is removed).
    public func storeNow(_ data: Data, forKey key: String) async throws {
        try await storeNow(data, forKey: key, metadata: DiskEntryMetadata())
    }

    /// As `storeNow(_:forKey:)`, with the entry's metadata (validators, content type, dates) given.
    package func storeNow(_ data: Data, forKey key: String, metadata: DiskEntryMetadata) async throws {
        try checkStorable(data, forKey: key, metadata: metadata)
        await waitForCommit(ofKey: key)
        _ = await writes.cancel(key)
        try await io.run { try self.write(data, forKey: key, metadata: metadata) }
    }

    /// Waits until every store queued so far (and any queued meanwhile) has been written or has failed, and
    /// every streamed entry's commit (`DiskEntryWriter.commit`) has landed or failed.
    public func flush() async {
        await writes.flush()
        await commits.waitForAll()
    }

    /// Returns once no background commit of `key` runs: what reads and changes of the key wait for first.
    func waitForCommit(ofKey key: String) async {
        if commits.isRunning(key) { await commits.wait(for: key) }
    }

    /// The writer: writes queued stores in order until the queue is empty (runs on the I/O queue).
    private func writeQueuedStores() {
        while let queued = writes.next() {
            do {
                try write(queued.data, forKey: queued.key, metadata: queued.metadata)
            } catch {
                state.withLock { $0.failedWrites += 1 }
                logger.warning(
                    "disk cache write failed", metadata: ["key": "\(queued.key)", "error": "\(error)"])
            }
            writes.finishWrite()
        }
    }

    /// Throws for an entry no write could store, so `store` reports it to its caller.
    private func checkStorable(_ data: Data, forKey key: String, metadata: DiskEntryMetadata) throws {
        let path = location(forKey: key).path
        guard data.count <= EntryHeader.maxPayloadBytes else {
            throw TroveError.ioFailed(
                path: path,
                reason: "entry of \(data.count) bytes is over the \(EntryHeader.maxPayloadBytes)-byte entry limit")
        }
        let header = EntryHeader(
            key: key, metadata: metadata, storedLength: data.count, originalLength: data.count, payloadCRC: 0)
        if let problem = header.fieldProblem { throw TroveError.ioFailed(path: path, reason: problem) }
    }

    /// Writes one entry file now (on the I/O queue). `checkStorable` has passed, so the header's fields fit.
    func write(_ data: Data, forKey key: String, metadata: DiskEntryMetadata) throws {
        let name = fileName(forKey: key)
        var payload = data
        var compressorID: UInt8 = 0
        // Compression is an optimisation: keep the compressed form only if it saves enough to pay for
        // decompressing on every read. Images that are compressed already are not even tried.
        if wouldCompress(data),
            let packed = try? compressor.compress(data, level: configuration.compressionLevel),
            packed.count <= data.count - data.count / Self.minimumCompressionSavingDivisor
        {
            payload = packed
            compressorID = compressor.id
        }
        let header = EntryHeader(
            key: key, metadata: metadata, compressorID: compressorID, storedLength: payload.count,
            originalLength: data.count, payloadCRC: CRC32.checksum(data))
        let headerBytes = header.encoded()
        let fileSize = headerBytes.count + payload.count
        guard fileSize <= configuration.byteLimit else {
            _ = try removeNow(forKey: key)
            return
        }
        try install(
            name, header: headerBytes, payload: payload,
            record: IndexRecord(
                key: key, bytes: fileSize, compressed: compressorID != 0,
                created: metadata.created, expires: metadata.expires),
            replacing: nil)
        trimIfNeeded()
    }

    /// Whether a store tries the compressor on a payload starting with these bytes: there is one, and they
    /// are not a compressed image format.
    func wouldCompress(_ leadingBytes: Data) -> Bool {
        compressor.id != 0 && !Self.isCompressedImage(leadingBytes)
    }

    /// A compressed form must save at least 1/16 (6.25%) of the bytes to be kept.
    static let minimumCompressionSavingDivisor = 16

    /// Well-known image formats are compressed already: another pass saves a few header bytes at best.
    static func isCompressedImage(_ data: Data) -> Bool {
        switch ImageFormat.wellKnown(sniffing: data) {
        case nil, .bmp?: false
        default: true
        }
    }

    /// Writes a complete file in tmp/, then renames it over the entry's path and updates the index in one
    /// critical section. With `replacing`, the rename happens only if the entry is still that file.
    /// Returns false when `replacing` no longer matched (the temp file is removed).
    @discardableResult
    private func install(
        _ name: String, header: [UInt8], payload: Data, record: IndexRecord,
        replacing: FileIdentity?
    ) throws -> Bool {
        let temporary = layout.temporaryPath(for: name)
        try files.createFile(at: temporary, header: header, payload: payload, sync: configuration.fsync)
        return try place(temporary, as: name, record: record, replacing: replacing)
    }

    /// Makes the shard directories of the entry file `name` now, on the caller's thread, so the rename that
    /// puts the entry in place later finds them (a streamed entry's writer calls it while its body arrives).
    /// A failure is left for `place` to meet and report.
    func prepareShardDirectories(for name: String) {
        let shards = layout.shardDirectories(for: name)
        try? files.makeDirectory(shards.outer)
        try? files.makeDirectory(shards.inner)
    }

    /// Renames a complete entry file from tmp/ over the entry's path and updates the index in one critical
    /// section; see `install`. The temp file is gone afterwards, whatever happened.
    @discardableResult
    func place(_ temporary: String, as name: String, record: IndexRecord, replacing: FileIdentity?) throws -> Bool {
        let path = layout.entryPath(for: name)
        let shards = layout.shardDirectories(for: name)
        do {
            var madeDirectories = false
            while true {
                let outcome = try state.withLock { state throws -> Bool? in
                    if let replacing, files.identity(of: path) != replacing { return false }
                    do {
                        try files.move(temporary, to: path)
                    } catch {
                        // The shard directories may not exist yet (or removeAll just cleared them).
                        if madeDirectories { throw error }
                        return nil
                    }
                    state.index.upsert(name, record)
                    state.noteChanged(name)
                    state.noteTouched(name)
                    return true
                }
                if let installed = outcome {
                    if !installed {
                        files.removeFile(temporary)
                        return false
                    }
                    break
                }
                // Made outside the lock: creating a directory costs a new inode, and readers wait on the lock.
                try files.makeDirectory(shards.outer)
                try files.makeDirectory(shards.inner)
                madeDirectories = true
            }
        } catch {
            files.removeFile(temporary)
            throw error
        }
        if configuration.fsync { try files.syncDirectory(shards.inner) }
        notifyStored(record)
        return true
    }

    /// Replaces the stored metadata (dates, validators, content type) and keeps the payload, as after an
    /// HTTP 304. A queued store of `key` takes the new metadata before it is written. Returns false if
    /// there is no valid entry for `key`.
    @discardableResult
    package func updateMetadata(forKey key: String, _ metadata: DiskEntryMetadata) async throws -> Bool {
        await waitForCommit(ofKey: key)
        if writes.updateMetadata(ofKey: key, metadata) { return true }
        await writes.waitForWrite(ofKey: key)
        return try await io.run { try self.updateMetadataNow(forKey: key, metadata) }
    }

    private func updateMetadataNow(forKey key: String, _ metadata: DiskEntryMetadata) throws -> Bool {
        let (name, path) = location(forKey: key).parts
        switch try EntryFile.read(at: path, payload: true, files: files) {
        case .missing:
            return false
        case let .corrupt(_, identity):
            discard(name, path: path, identity: identity, corrupt: true, countsAsMiss: false)
            return false
        case let .valid(old, storedPayload, file):
            guard old.key == key, let storedPayload else { return false }
            var header = old
            header.apply(metadata)
            if let problem = header.fieldProblem { throw TroveError.ioFailed(path: path, reason: problem) }
            let headerBytes = header.encoded()
            let record = IndexRecord(
                key: key, bytes: headerBytes.count + storedPayload.count,
                compressed: header.compressorID != 0, created: header.created,
                expires: header.expires)
            return try install(
                name, header: headerBytes, payload: storedPayload, record: record, replacing: file.identity)
        }
    }

    // MARK: Removing

    /// Removes the entry for `key`, and cancels a queued store of it so it does not come back; false if
    /// there was neither (another key's file at the same hash is kept).
    public func removeEntry(forKey key: String) async throws -> Bool {
        await waitForCommit(ofKey: key)
        let cancelled = await writes.cancel(key)
        let removed = try await io.run { try self.removeNow(forKey: key) }
        return cancelled || removed
    }

    func removeNow(forKey key: String) throws -> Bool {
        let (name, path) = location(forKey: key).parts
        switch try EntryFile.read(at: path, payload: false, files: files) {
        case .missing:
            state.withLock { state in
                if state.index.remove(name) != nil { state.noteChanged(name) }
            }
            return false
        case let .corrupt(_, identity):
            discard(name, path: path, identity: identity, corrupt: true, countsAsMiss: false)
            return false
        case let .valid(header, _, file):
            guard header.key == key else { return false }
            return try state.withLock { state throws -> Bool in
                guard files.identity(of: path) == file.identity, try files.remove(path) else { return false }
                state.index.remove(name)
                state.noteChanged(name)
                return true
            }
        }
    }

    /// Removes every entry and cancels every queued store; returns how many entries went (files, and
    /// queued stores of keys with no file). The entries directory is swapped for an empty one in one
    /// rename, so readers never see a half-cleared cache; the old one is deleted afterwards.
    @discardableResult
    public func removeAll() async throws -> Int {
        await commits.waitForAll()
        let cancelled = await writes.cancelAll()
        return try await io.run {
            let unwritten = cancelled.filter { !self.files.exists(self.fileURL(forKey: $0).path) }.count
            return try self.removeAllNow() + unwritten
        }
    }

    private func removeAllNow() throws -> Int {
        let trash = layout.temporaryPath(for: "removed")
        let moved = try state.withLock { state throws -> Bool in
            let moved = try files.moveIfPresent(layout.entries, to: trash)
            try files.makeDirectory(layout.entries)
            state.index.removeAll()
            state.generation += 1
            return moved
        }
        guard moved else { return 0 }
        var removed = 0
        forEachEntryFile(under: trash) { _, _ in removed += 1 }
        do {
            try FileManager.default.removeItem(atPath: trash)
        } catch {
            throw TroveError.ioFailed(
                path: trash, reason: "cannot delete removed entries: \(error.localizedDescription)")
        }
        return removed
    }

    // MARK: Inspecting

    /// The size on disk of `key`'s entry when the index knows it and it is fresh (not past its `expires`
    /// date), without reading the file: what a prefetch needs to skip a URL. Nil otherwise.
    /// A fresh queued store counts, at its payload's size.
    package func freshEntrySize(forKey key: String) async -> Int? {
        if let queued = writes.queued(key) {
            return isReadable(queued.metadata, includingStale: false, now: Date()) ? queued.data.count : nil
        }
        await waitForCommit(ofKey: key)
        await waitForIndex()
        let name = fileName(forKey: key)
        let now = Date()
        return state.withLock { state -> Int? in
            guard let record = state.index.record(name), record.key == key,
                !isExpired(created: record.created, expires: record.expires, now: now),
                record.expires.map({ $0 > now }) ?? true
            else { return nil }
            return record.bytes
        }
    }

    /// True when no entry of any key can be found now, by this process or another: nothing is queued or
    /// committing here, and the entries folder has no shard folder on disk, so no entry file exists. Told by
    /// one `stat` of that folder, whose link count counts its subfolders on ext4, XFS, tmpfs and the like;
    /// on a file system that does not count them (btrfs) it is always false. Lets a lookup that is nearly
    /// always a miss (the failed-URL memory) skip reading for it.
    package var holdsNoEntries: Bool {
        guard writes.isIdle, commits.isIdle else { return false }
        return files.linkCount(of: layout.entries) == 2
    }

    /// Whether the index (or the write queue) has an entry for `key`, fresh or stale, without reading its
    /// file (waits for the open-time scan): false means there is nothing to read or revalidate, unless
    /// another process stored it since this cache was opened.
    package func knowsEntry(forKey key: String) async -> Bool {
        if writes.queued(key) != nil { return true }
        await waitForCommit(ofKey: key)
        await waitForIndex()
        let name = fileName(forKey: key)
        return state.withLock { $0.index.record(name)?.key == key }
    }

    /// Waits until the open-time scan has built the index (and the first trim has run).
    public func waitForIndex() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.ready { return true }
                state.readyWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Counts from the complete index (waits for the open-time scan): entries on disk, not queued stores
    /// (`flush()` first to count those).
    public func stats() async -> DiskCacheStats {
        await waitForIndex()
        return state.withLock { state in
            DiskCacheStats(
                entries: state.index.count, bytes: state.index.totalBytes,
                compressed: state.index.compressedCount, hits: state.hits, misses: state.misses,
                corrupt: state.corrupt, evictions: state.evictions, limitBytes: configuration.byteLimit,
                failedWrites: state.failedWrites)
        }
    }

    /// The full keys of the entries the index holds that have not expired, sorted (waits for the scan).
    package func keys() async throws -> [String] {
        await waitForIndex()
        let now = Date()
        let keys = state.withLock { state in
            state.index.records.values
                .filter { !isExpired(created: $0.created, expires: $0.expires, now: now) }
                .map(\.key)
        }
        return keys.sorted()
    }
}
