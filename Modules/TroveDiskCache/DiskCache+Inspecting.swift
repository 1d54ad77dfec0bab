import Foundation
import Logging
import Synchronization
import TroveCore
import TroveEviction
import TroveSupport

// What the index knows without reading entries: fresh sizes, known keys, stats.
extension DiskCache {
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
