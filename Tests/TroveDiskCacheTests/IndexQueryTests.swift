import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveDiskCache

/// What the index answers without reading an entry's file: a prefetch's "already cached" and "nothing there".
@Suite("Index queries")
struct IndexQueryTests {
    @Test func knowsEntryCountsFreshStaleAndQueuedEntriesAndNothingElse() async throws {
        let dir = try TemporaryDirectory()
        let keeping = DiskCacheConfiguration(staleRetention: .seconds(3600))
        let cache = try makeCache(at: dir, configuration: keeping)
        try await cache.storeNow(Data("fresh".utf8), forKey: "fresh")
        try await cache.storeNow(
            Data("stale".utf8), forKey: "stale", metadata: DiskEntryMetadata(expires: Date().addingTimeInterval(-60)))
        try await cache.store(Data("queued".utf8), forKey: "queued")
        #expect(await cache.knowsEntry(forKey: "fresh"))
        #expect(await cache.knowsEntry(forKey: "stale"))
        #expect(await cache.freshEntrySize(forKey: "stale") == nil)
        #expect(await cache.knowsEntry(forKey: "queued"))
        #expect(!(await cache.knowsEntry(forKey: "absent")))
        await cache.flush()

        // Another process's cache learns them from its open-time scan.
        let reopened = try DiskCache(directory: dir.url, configuration: keeping)
        for key in ["fresh", "stale", "queued"] { #expect(await reopened.knowsEntry(forKey: key)) }
        #expect(!(await reopened.knowsEntry(forKey: "absent")))
        #expect(try await reopened.removeEntry(forKey: "stale"))
        #expect(!(await reopened.knowsEntry(forKey: "stale")))
    }
}

/// `holdsNoEntries`: whether any entry can be found at all, this process's or another's.
@Suite("Empty cache check")
struct EmptyCacheCheckTests {
    @Test func holdsNoEntriesUntilAnyProcessStoresOneAndAgainOnceAllAreRemoved() async throws {
        let dir = try TemporaryDirectory()
        let cache = try makeCache(at: dir)
        await cache.waitForIndex()
        #expect(cache.holdsNoEntries)

        // Another process's store shows: the check reads the folder, not this process's index.
        let other = try DiskCache(directory: dir.url)
        try await other.storeNow(Data("failed".utf8), forKey: "elsewhere")
        #expect(!cache.holdsNoEntries)
        #expect(try await cache.removeAll() == 1)
        #expect(cache.holdsNoEntries)

        // A store still queued counts too.
        let gatedDir = try TemporaryDirectory()
        let files = GatedFileSystem(cacheDirectory: gatedDir.url)
        let gated = try makeCache(at: gatedDir, files: files)
        await gated.waitForIndex()
        files.shut()
        try await gated.store(Data("queued".utf8), forKey: "queued")
        #expect(!gated.holdsNoEntries)
        files.open()
        await gated.flush()
        #expect(!gated.holdsNoEntries)
    }
}
