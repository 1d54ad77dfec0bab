import Foundation
import Logging
import Synchronization
import TroveCore
import TroveDiskCache
import TroveMemoryCache

/// The only code that stores or removes an entry, in any tier: memory, disk and the shared tier. The stages
/// decide what to keep; this says how each tier keeps it, so the rules (write-behind, a failing disk never
/// fails a request, a no-store answer takes the older copy with it, memory only while fresh) are written
/// once.
package struct CacheWriter: Sendable {
    let diskCache: DiskCache?
    /// Nil when the configuration names no shared tier.
    let shared: SharedTierAccess?
    let freshness: FreshnessPolicy
    let logger: Logger
    /// False when fetched originals skip the disk (`PipelineConfiguration.keepsOriginalsOnDisk`).
    var keepsOriginalsOnDisk = true
    /// Writes that run after the caller has its answer (placeholders added to entries); `flush()` waits.
    let background = BackgroundWrites()

    // MARK: - Original bytes

    /// Fetched bytes the pipeline accepted: stored on disk (write-behind; unless memory-only or originals
    /// are not kept there) and in the
    /// shared tier for as long as they are fresh. A no-store answer stores nothing and removes the older
    /// copy (a revalidated entry must not outlive it); a request that said no-store touches nothing. A disk
    /// that fails is logged, never thrown: the bytes are good. A shared tier configured wrong (a bad
    /// password) throws.
    ///
    /// A response that varies (`Vary`) is stored as a variant under its own key (`CacheKey.variant`),
    /// carrying the values `headers` (what the request sent) had for the fields it names, and the request's
    /// key gets a variant index naming those fields; a response that does not vary replaces the index.
    /// Returns the metadata as stored (with the selecting fields), or nil when nothing was stored.
    @discardableResult
    func storeFetched(
        _ data: Data, metadata: DiskEntryMetadata, storable: Bool, for request: RawRequest,
        headers: [String: String]
    ) async throws -> DiskEntryMetadata? {
        guard storable else {
            if request.usesCaches, !request.asked.noStore { _ = try? await diskCache?.removeEntry(forKey: request.key) }
            return nil
        }
        var metadata = metadata
        var key = request.key
        var index: DiskEntryMetadata?
        if case let .fields(names) = Vary.names(in: metadata.headerFields) {
            metadata.selecting = Vary.selecting(names, in: headers)
            key = CacheKey.variant(of: request.key, selecting: metadata.selecting)
            var variants = DiskEntryMetadata(created: metadata.created)
            variants.variantNames = names
            index = variants
        }
        guard request.policy != .memoryOnly else { return metadata }
        if keepsOriginalsOnDisk {
            await storeOnDisk(data, forKey: key, metadata: metadata)
            if let index { await storeOnDisk(Data(), forKey: request.key, metadata: index) }
        }
        if let shared {
            try await shared.store(
                data, forKey: key, metadata: metadata, ttl: freshness.sharedTTL(expires: metadata.expires))
            if let index {
                try await shared.store(Data(), forKey: request.key, metadata: index, ttl: freshness.diskMaxAge)
            }
        }
        return metadata
    }

    /// A shared tier's hit, copied to the local disk (unless memory-only, or an original when originals are
    /// not kept on disk) so the next read stays local: under the key it had there, with the variant index it
    /// was found through.
    func storeFromShared(_ entry: DiskEntry, index: DiskEntry?, for request: RawRequest) async {
        guard request.policy != .memoryOnly, keepsOriginalsOnDisk || request.isResult else { return }
        await storeOnDisk(entry.data, forKey: entry.key, metadata: entry.metadata)
        if let index { await storeOnDisk(index.data, forKey: index.key, metadata: index.metadata) }
    }

    /// The writer a prefetch streams a body into; its entry appears on `commitStreamed`.
    func streamingEntry(forKey key: String, in diskCache: DiskCache) -> DiskEntryWriter {
        diskCache.entryWriter(forKey: key)
    }

    /// Commits a streamed body with its metadata (write-behind, as a store of fetched bytes is: reads of the
    /// key wait for it, `flush()` too); for a no-store answer (nil metadata) drops it and removes the older
    /// copy.
    func commitStreamed(_ writer: DiskEntryWriter, metadata: DiskEntryMetadata?, key: String) async {
        guard let metadata else {
            writer.discard()
            _ = try? await diskCache?.removeEntry(forKey: key)
            return
        }
        await writer.commit(metadata: metadata)
    }

    /// A 304: the stored entry's updated fields, dates and validators, without touching its bytes; a 304
    /// that made the response no-store removes it.
    func storeRevalidated(_ metadata: DiskEntryMetadata, storable: Bool, forKey key: String) async {
        guard storable else {
            _ = try? await diskCache?.removeEntry(forKey: key)
            return
        }
        _ = try? await diskCache?.updateMetadata(forKey: key, metadata)
    }

    /// Bytes that turned out not to decode: they must not stay cached as if they were an image.
    func removeUndecodable(forKey key: String) async {
        _ = try? await diskCache?.removeEntry(forKey: key)
    }

    // MARK: - Placeholders

    /// A placeholder computed from an original: added to the header of its disk entry (stored under
    /// `entryKey`, whose metadata was `metadata`) and to the shared tier's small value beside it (under the
    /// primary `key`), in the background: the caller has its string, and rewriting an entry costs as much
    /// as its bytes.
    func storePlaceholder(
        _ value: String, kind: String, forKey key: String, entry: (key: String, metadata: DiskEntryMetadata)?,
        raw: RawResult
    ) {
        let diskCache = diskCache, shared = shared, logger = logger
        var placeholders = entry?.metadata.placeholders ?? [:]
        placeholders[kind] = value
        let kept = placeholders
        let sharedTTL = freshness.sharedTTL(expires: raw.expires)
        background.run {
            if let diskCache, let entryKey = entry?.key, var metadata = entry?.metadata {
                metadata.placeholders = kept
                do {
                    try await diskCache.updateMetadata(forKey: entryKey, metadata)
                } catch {
                    logger.warning(
                        "disk cache write failed",
                        metadata: ["key": .redacted("\(entryKey)"), "error": .redacted(error)])
                }
            }
            if let shared {
                var metadata = DiskEntryMetadata(expires: raw.expires)
                metadata.selecting = raw.selecting
                metadata.placeholders = kept
                // The tier is a cache: a placeholder that could not be kept is computed again.
                try? await shared.store(
                    Data(), forKey: CacheKey.placeholders(of: key), metadata: metadata, ttl: sharedTTL)
            }
        }
    }

    // MARK: - Processed results

    /// An encoded processed result, on disk under its processed key until its source's expiry, answering
    /// only requests that match the fields that selected its source (`Vary`).
    func storeProcessed(_ data: Data, forKey key: String, expires: Date?, selecting: [SelectingField]) async {
        var metadata = DiskEntryMetadata(expires: expires)
        metadata.selecting = selecting
        await storeOnDisk(data, forKey: key, metadata: metadata)
    }

    /// An encoded processed result in the shared tier until its source's expiry, behind the answer (`flush()`
    /// waits for it), then `lease` given back: the fleet's waiters find the value on their next poll, not a
    /// free lease. Nil data (a result that may not be kept) only gives the lease back. A tier that fails is
    /// logged: the result is made, and the next process to miss makes it again. At most
    /// `BackgroundWrites.maxSharedResults` writes wait on a slow tier at once; past them a result is not
    /// shared (its lease is given back at once), so a slow tier cannot make results pile up in memory.
    func shareProcessed(
        _ data: Data?, forKey key: String, expires: Date?, selecting: [SelectingField],
        releasing lease: SharedTierLease?
    ) {
        guard let shared else { return }
        let ttl = freshness.sharedTTL(expires: expires)
        let logger = logger
        let admitted = data != nil && background.admitSharedResult()
        let data = admitted ? data : nil
        background.run { [background] in
            if let data {
                var metadata = DiskEntryMetadata(expires: expires)
                metadata.selecting = selecting
                do {
                    try await shared.store(data, forKey: key, metadata: metadata, ttl: ttl)
                } catch {
                    logger.warning(
                        "shared tier write failed", metadata: ["key": .redacted(key), "error": .redacted(error)])
                }
                background.endSharedResult()
            }
            if let lease { await shared.release(lease) }
        }
    }

    /// Keeps a response in memory for as long as the bytes behind it are fresh (never for no-store, never
    /// a stale copy).
    func remember<Response: Sendable>(
        _ response: Response, in cache: MemoryCache<String, Response>, forKey key: String, cost: Int,
        _ raw: RawResult
    ) {
        guard raw.keepsInMemory else { return }
        cache.setValue(response, forKey: key, cost: cost, ttl: raw.memoryTTL)
    }

    // MARK: - Forgetting

    /// Removes from disk every entry keyed by `source` (the original, processed variants, request-keyed
    /// answers), and from the shared tier the original, its placeholders and every result this process has
    /// on disk for it; returns how many of each went. A result only ever made by another process stays in
    /// the shared tier until it expires: its key comes from transforms no one can list from the source.
    func forget(source: String) async -> (disk: Int, shared: Int) {
        let removedKeys = Mutex<[String]>([])
        let disk =
            (try? await diskCache?.removeEntries(whereKey: { key in
                guard CacheKey.source(ofStorageKey: key) == source else { return false }
                removedKeys.withLock { $0.append(key) }
                return true
            })) ?? 0
        guard let shared else { return (disk, 0) }
        let raw = CacheKey(source: source).raw
        var removedShared = 0
        for key in Set([raw] + removedKeys.withLock { $0 }) where await shared.remove(forKey: key) {
            removedShared += 1
        }
        _ = await shared.remove(forKey: CacheKey.placeholders(of: raw))
        return (disk, removedShared)
    }

    /// Invalidation after an unsafe request (RFC 9111 §4.4): every stored response keyed by `source` goes
    /// from disk, the shared tier and `cache`, so the next request for it goes to the origin.
    func invalidate<Response: Sendable>(source: String, in cache: MemoryCache<String, Response>) async {
        let (disk, shared) = await forget(source: source)
        let memory = forget(source: source, in: cache)
        logger.debug(
            "invalidated after an unsafe request",
            metadata: ["source": .redacted(source), "disk": "\(disk)", "shared": "\(shared)", "memory": "\(memory)"])
    }

    /// Removes from memory every response whose key belongs to `source`; returns how many.
    func forget<Response: Sendable>(source: String, in cache: MemoryCache<String, Response>) -> Int {
        cache.removeValues { CacheKey.source(ofStorageKey: $0) == source }
    }

    // MARK: - Disk

    /// Write-behind: queued and returned at once. A full or failing disk must not fail the request.
    private func storeOnDisk(_ data: Data, forKey key: String, metadata: DiskEntryMetadata) async {
        guard let diskCache else { return }
        do {
            try await diskCache.store(data, forKey: key, metadata: metadata)
        } catch {
            logger.warning("disk cache write failed", metadata: ["key": .redacted("\(key)"), "error": .redacted(error)])
        }
    }
}
