import Foundation
import Logging
import Synchronization
import TroveCore
import TroveEviction
import TroveSupport

// Storing an entry: write-behind or at once, written to a temp file and renamed into place, compressed
// when that pays, indexed; and updating a stored entry's metadata.
extension DiskCache {
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
                // A key holds its source URL, with the query that may sign it.
                logger.warning(
                    "disk cache write failed",
                    metadata: [
                        "key": "\(URL.redactingURLs(in: queued.key))",
                        "error": "\(URL.redactingURLs(in: "\(error)"))"
                    ])
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
}
