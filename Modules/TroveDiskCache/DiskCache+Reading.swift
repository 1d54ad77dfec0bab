import Foundation
import Logging
import Synchronization
import TroveCore
import TroveEviction
import TroveSupport

// Reading an entry: from the write-behind queue, else its file (on the caller's thread when the kernel
// has it cached), checked and decompressed; a damaged file is discarded and reads as a miss.
extension DiskCache {
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
    func isReadable(_ metadata: DiskEntryMetadata, includingStale: Bool, now: Date) -> Bool {
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
    /// have renamed a fresh entry over it meanwhile), and forgets its entry. A damaged file is counted in
    /// `corrupt` once however many found it (lookups and the opening scan that read it at the same time, or
    /// every lookup of a directory where the entry was): by the call that deletes it, or, when it cannot be
    /// deleted, by the first call that finds it there.
    /// Returns whether the file was deleted.
    @discardableResult
    func discard(_ name: String, path: String, identity: FileIdentity, corrupt: Bool, countsAsMiss: Bool) -> Bool {
        state.withLock { state in
            if countsAsMiss { state.misses += 1 }
            // Gone (whoever deleted it counted it) or replaced by a store (the damage went with it).
            guard files.identity(of: path) == identity else { return false }
            let removed = files.removeFile(path)
            state.index.remove(name)
            state.noteChanged(name)
            guard corrupt else { return removed }
            // One left in place is remembered, so finding it again, or deleting it later, counts nothing more.
            let firstFind =
                removed
                ? state.damageLeftInPlace.remove(identity) == nil : state.damageLeftInPlace.insert(identity).inserted
            if firstFind { state.corrupt += 1 }
            if removed { state.corruptRemovedSinceVerify += 1 }
            return removed
        }
    }
}
