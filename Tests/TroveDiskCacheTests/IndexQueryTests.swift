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
