import Foundation
import Synchronization
import TroveCore
import TroveSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes one entry of a `DiskCache` while its payload arrives, so the payload is never held in memory
/// whole: a `FetchBodySink` a fetch writes into, then `commit` or `discard`.
///
/// `begin` creates a temp file in `<root>/tmp/` and leaves room at its start for the header, whose length
/// the response's key, validators and content type fix; each `write` appends a piece there and carries the
/// payload's CRC-32 on. Committing writes the header (lengths, CRC, dates) into that room and renames the
/// file into place as any store does, so a reader sees the old entry or the new one, never a part of one,
/// and a crash leaves at most a temp file the next open sweeps. A failed or cancelled fetch `discard`s:
/// the temp file goes and no entry changes. A writer dropped without either discards itself.
///
/// `commit` is write-behind like `DiskCache.store`: it returns once the commit is under way, reads and
/// changes of the key wait for it, `flush()` waits for it, and a failure is logged and counted in
/// `DiskCacheStats.failedWrites`. `commitNow` returns once the entry is on disk and throws what failed.
///
/// Streamed entries are stored as is. When the cache's compressor would try the payload (it is not a
/// compressed image format) and it is at most 1 MiB, committing reads it back and stores it as `store` would.
package final class DiskEntryWriter: FetchBodySink {
    private struct State {
        /// The temp file, once `begin` made it.
        var temporary: String?
        var fd: Int32 = -1
        /// Header bytes reserved before the payload.
        var reserved = 0
        var length = 0
        var crc: UInt32 = 0
        /// The payload's first bytes, for a format check before the entry is kept.
        var leading = Data()
        /// Committed or discarded: nothing more may happen.
        var finished = false
    }

    /// The key the entry is stored under.
    package let key: String
    private let cache: DiskCache
    private let name: String
    private let state = Mutex(State())

    /// The largest payload a commit reads back to compress (1 MiB).
    static let largestReadBack = 1 << 20

    /// The largest payload whose commit runs on the caller's thread (1 MiB); larger ones go to the I/O queue.
    static let largestCommitOnCallersThread = 1 << 20

    /// How many leading payload bytes `leadingBytes` keeps: as many as decoders are shown to recognise a format.
    package static let leadingByteCount = ImageFormat.sniffLength

    init(cache: DiskCache, key: String) {
        self.cache = cache
        self.key = key
        self.name = cache.fileName(forKey: key)
    }

    deinit {
        discard()
    }

    /// Payload bytes written so far.
    package var bytesWritten: Int { state.withLock { $0.length } }

    /// The payload's first `leadingByteCount` bytes (fewer when it is shorter): enough to tell its format.
    package var leadingBytes: Data { state.withLock { $0.leading } }

    /// Creates the temp file, with room for a header carrying the response's validators and content type.
    /// Throws `ioFailed` when one of them is too long for the format, or the file cannot be made.
    package func begin(_ response: ResponseMetadata) throws {
        var metadata = DiskEntryMetadata(validators: response.validators, contentType: response.contentType)
        metadata.status = response.statusCode
        // The fields the commit will store, so the header it writes fits the room left for it exactly.
        metadata.headerFields = response.headerFields.storedWithResponse
        let header = EntryHeader(key: key, metadata: metadata, storedLength: 0, originalLength: 0, payloadCRC: 0)
        let temporary = cache.layout.temporaryPath(for: name)
        if let problem = header.fieldProblem { throw TroveError.ioFailed(path: temporary, reason: problem) }
        try state.withLock { state throws in
            // Discarded already (the fetch was cancelled while its head arrived): nothing to begin.
            if state.finished { throw TroveError.cancelled }
            guard state.temporary == nil else {
                throw TroveError.ioFailed(path: temporary, reason: "a DiskEntryWriter is begun once, not twice")
            }
            let fd = try cache.files.createEmptyFile(at: temporary)
            state.temporary = temporary
            state.fd = fd
            state.reserved = header.encoded().count
            // The payload starts after the header's room; the header is written there at commit.
            guard lseek(fd, off_t(state.reserved), SEEK_SET) >= 0 else {
                throw FileOps.error("seek", path: temporary, code: errno)
            }
        }
        // Made with the temp file, so the rename that commits the entry finds them.
        cache.prepareShardDirectories(for: name)
    }

    /// Appends a piece of the payload to the temp file. Throws `diskFull` or `ioFailed` when it cannot be
    /// written, `ioFailed` past the format's 1 GiB payload limit, and `cancelled` once the writer was
    /// discarded (a piece that raced a cancelled fetch's cleanup).
    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        try state.withLock { state throws in
            if state.finished { throw TroveError.cancelled }
            guard let temporary = state.temporary else {
                throw TroveError.ioFailed(
                    path: cache.layout.temporary, reason: "a body piece reached the disk entry before its head")
            }
            guard state.length + bytes.count <= EntryHeader.maxPayloadBytes else {
                throw TroveError.ioFailed(
                    path: temporary,
                    reason: "entry is over the \(EntryHeader.maxPayloadBytes)-byte entry limit")
            }
            try cache.files.writeAll(state.fd, [bytes], path: temporary)
            state.crc = CRC32.checksum(bytes, seed: state.crc)
            if state.leading.count < Self.leadingByteCount {
                state.leading.append(contentsOf: bytes.prefix(Self.leadingByteCount - state.leading.count))
            }
            state.length += bytes.count
        }
    }

    /// Puts the entry in place write-behind: returns once its commit is under way (after any earlier commit
    /// of the key); from then on reads of the key wait for it and see the entry. A commit that fails
    /// (`diskFull`, `ioFailed`) is logged and counted in `DiskCacheStats.failedWrites`, and leaves the
    /// previous entry as it was and no temp file.
    package func commit(metadata: DiskEntryMetadata) async {
        await cache.commits.start(key)
        _ = await cache.writes.cancel(key)
        // Writing the header and renaming take microseconds: done on this thread, they spare a batch the
        // wake of an I/O thread per entry. A commit that syncs, reads the payload back, or closes a large
        // file (a network file system writes it out at close) goes to the I/O queue as stores do, and so
        // does any trimming it sets off.
        if cache.configuration.fsync || bytesWritten > Self.largestCommitOnCallersThread || readsBack(metadata) {
            cache.io.background { [self] in finishCommit(metadata, onCallersThread: false) }
        } else {
            finishCommit(metadata, onCallersThread: true)
        }
    }

    /// Runs the commit, counting and logging a failure, then any trimming it sets off, and ends it.
    private func finishCommit(_ metadata: DiskEntryMetadata, onCallersThread: Bool) {
        do {
            try finishEntry(metadata)
        } catch {
            cache.state.withLock { $0.failedWrites += 1 }
            cache.logger.warning(
                "disk cache write failed",
                metadata: [
                    "key": "\(URL.redactingURLs(in: key))", "error": "\(URL.redactingURLs(in: "\(error)"))"
                ])
        }
        // Evicting may take long: not on a caller's thread. The commit ends after it either way, so
        // `flush()` still waits for the trim a commit sets off.
        if onCallersThread && cache.needsTrim {
            cache.io.background { [self] in
                cache.trimIfNeeded()
                cache.commits.finish(key)
            }
        } else {
            cache.trimIfNeeded()
            cache.commits.finish(key)
        }
    }

    /// Writes the header and puts the entry in place, replacing any previous entry of the key (and a queued
    /// store of it) atomically; returns once it is on disk. An entry whose file would exceed the cache's
    /// byte limit is not kept (and the previous entry is removed), as with `storeNow`. If anything fails it
    /// throws, the previous entry is left as it was, and no temp file remains.
    package func commitNow(metadata: DiskEntryMetadata) async throws {
        await cache.waitForCommit(ofKey: key)
        _ = await cache.writes.cancel(key)
        try await cache.io.run {
            defer { self.cache.trimIfNeeded() }
            try self.finishEntry(metadata)
        }
    }

    /// The header of the entry committed with `metadata`, for a payload of `length` bytes with `crc`.
    private func entryHeader(_ metadata: DiskEntryMetadata, length: Int, crc: UInt32) -> EntryHeader {
        EntryHeader(key: key, metadata: metadata, storedLength: length, originalLength: length, payloadCRC: crc)
    }

    /// Whether committing reads the payload back to store it the ordinary way: its header needs other room
    /// than `begin` left, or the compressor may shrink it (only payloads up to `largestReadBack` are tried:
    /// commits run behind the fetches, and reading back every big body of a batch would undo the point of
    /// streaming it).
    private func readsBack(headerLength: Int, _ state: State) -> Bool {
        headerLength != state.reserved
            || (state.length <= Self.largestReadBack && cache.wouldCompress(state.leading))
    }

    /// `readsBack` for a commit with `metadata`, before it starts.
    private func readsBack(_ metadata: DiskEntryMetadata) -> Bool {
        let current = state.withLock { $0 }
        return readsBack(headerLength: entryHeader(metadata, length: current.length, crc: 0).encoded().count, current)
    }

    /// Header, sync, rename into place.
    private func finishEntry(_ metadata: DiskEntryMetadata) throws {
        let taken = state.withLock { state -> State? in
            guard !state.finished, state.temporary != nil else { return nil }
            state.finished = true
            return state
        }
        guard let taken, let temporary = taken.temporary else {
            throw TroveError.ioFailed(
                path: cache.layout.temporary,
                reason: "a DiskEntryWriter commits once, after its body began and before any discard")
        }
        let files = cache.files
        let header = entryHeader(metadata, length: taken.length, crc: taken.crc)
        // Until the header is in, the descriptor is open and the temp file this writer's to remove.
        let storedAsIs: Data?
        do {
            if let problem = header.fieldProblem { throw TroveError.ioFailed(path: temporary, reason: problem) }
            let headerBytes = header.encoded()
            if readsBack(headerLength: headerBytes.count, taken) {
                storedAsIs = try files.readBytes(taken.fd, at: taken.reserved, count: taken.length, path: temporary)
            } else {
                storedAsIs = nil
                guard lseek(taken.fd, 0, SEEK_SET) == 0 else {
                    throw FileOps.error("seek", path: temporary, code: errno)
                }
                try headerBytes.withUnsafeBytes { try files.writeAll(taken.fd, [$0], path: temporary) }
            }
        } catch {
            files.close(taken.fd)
            files.removeFile(temporary)
            throw error
        }
        if let payload = storedAsIs {
            files.close(taken.fd)
            files.removeFile(temporary)
            try cache.write(payload, forKey: key, metadata: metadata)
            return
        }
        // Closes the file, and removes it if that (or the sync) fails.
        try files.finishFile(taken.fd, at: temporary, sync: cache.configuration.fsync)
        let fileSize = taken.reserved + taken.length
        guard fileSize <= cache.configuration.byteLimit else {
            files.removeFile(temporary)
            _ = try cache.removeNow(forKey: key)
            return
        }
        try cache.place(
            temporary, as: name,
            record: IndexRecord(
                key: key, bytes: fileSize, compressed: false, created: metadata.created, expires: metadata.expires),
            replacing: nil)
    }

    /// Drops what was written: the temp file goes, no entry changes. Does nothing after `commit` or a
    /// first `discard`.
    package func discard() {
        let taken = state.withLock { state -> State? in
            guard !state.finished else { return nil }
            state.finished = true
            return state
        }
        guard let taken, let temporary = taken.temporary else { return }
        cache.files.close(taken.fd)
        cache.files.removeFile(temporary)
    }
}

extension DiskCache {
    /// A writer that stores `key`'s entry as its payload arrives (see `DiskEntryWriter`): hand it to a fetch
    /// as its body sink, then `commit` it with the entry's metadata, or `discard` it.
    package func entryWriter(forKey key: String) -> DiskEntryWriter {
        DiskEntryWriter(cache: self, key: key)
    }
}
