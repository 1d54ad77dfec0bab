import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveDiskCache

/// A cache directory knows which hasher wrote it; opening it with another re-files the entries under the
/// new names (they carry their full keys) instead of deleting them as damage.
@Suite("Changing the hasher of a cache directory")
struct HasherChangeTests {
    @Test func entriesWrittenUnderAnotherHasherAreReFiledNotDeleted() async throws {
        let dir = try TemporaryDirectory()
        let payload = Data("the bytes of https://example.com/a.png".utf8)
        do {
            let md5 = try DiskCache(directory: dir.url, hasher: MD5Hasher())
            try await md5.store(payload, forKey: "https://example.com/a.png")
            await md5.flush()
            await md5.waitForIndex()
        }
        let md5Path = URL(
            fileURLWithPath: CacheLayout(directory: dir.url)
                .entryPath(for: MD5Hasher().hash("https://example.com/a.png")))
        #expect(fileExists(md5Path))

        // Opened with sha256: the first lookup waits for the move and hits.
        let sha = try DiskCache(directory: dir.url, hasher: SHA256Hasher())
        #expect(try await sha.data(forKey: "https://example.com/a.png") == payload)
        #expect(fileExists(sha.fileURL(forKey: "https://example.com/a.png")))
        #expect(!fileExists(md5Path))
        let stats = await sha.stats()
        #expect(stats.corrupt == 0 && stats.entries == 1)
        #expect(CacheManifest.read(in: CacheLayout(directory: dir.url))?.hasher == "sha256")

        // And back again: still there, nothing deleted along the way.
        let again = try DiskCache(directory: dir.url, hasher: MD5Hasher())
        #expect(try await again.data(forKey: "https://example.com/a.png") == payload)
        #expect(fileExists(md5Path))
        #expect(filesUnder(dir.url.appendingPathComponent("entries")).count == 1)
    }

    @Test func reFiledEntriesAreIndexedBeforeAnyRead() async throws {
        let dir = try TemporaryDirectory()
        do {
            let md5 = try DiskCache(directory: dir.url, hasher: MD5Hasher())
            for key in ["a", "b", "c"] { try await md5.store(Data(key.utf8), forKey: key) }
            await md5.flush()
            await md5.waitForIndex()
        }
        let sha = try DiskCache(directory: dir.url, hasher: SHA256Hasher())
        await sha.waitForIndex()
        // Counted and limited like any entry, though nothing has read them yet.
        let stats = await sha.stats()
        #expect(stats.entries == 3 && stats.hits == 0)
        #expect(try await sha.keys().sorted() == ["a", "b", "c"])
    }

    @Test func anEntryAlreadyAtTheNewNameWinsOverAStrayFromAnotherHasher() async throws {
        let dir = try TemporaryDirectory(), other = try TemporaryDirectory()
        let sha = try DiskCache(directory: dir.url, hasher: SHA256Hasher())
        try await sha.store(Data("new".utf8), forKey: "k")
        await sha.flush()
        await sha.waitForIndex()
        // A stray md5-named entry for the same key, as another process with another hasher would leave.
        let md5 = try DiskCache(directory: other.url, hasher: MD5Hasher())
        try await md5.store(Data("stray".utf8), forKey: "k")
        await md5.flush()
        let strayPath = CacheLayout(directory: dir.url).entryPath(for: MD5Hasher().hash("k"))
        try FileManager.default.createDirectory(
            atPath: (strayPath as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: md5.fileURL(forKey: "k"), to: URL(fileURLWithPath: strayPath))

        let reopened = try DiskCache(directory: dir.url, hasher: SHA256Hasher())
        await reopened.waitForIndex()
        #expect(try await reopened.data(forKey: "k") == Data("new".utf8))
        #expect(!FileManager.default.fileExists(atPath: strayPath))
        #expect(filesUnder(dir.url.appendingPathComponent("entries")).count == 1)
        #expect(await reopened.stats().corrupt == 0)
    }

    @Test func aNewDirectoryHasItsManifestBeforeTheOpenerReturns() throws {
        // A process may end before the opening scan does (a quick `trove get`); the next opener, with
        // another hasher, must still learn which one named the entries.
        let dir = try TemporaryDirectory()
        _ = try DiskCache(directory: dir.url, hasher: MD5Hasher())
        let manifest = CacheManifest.read(in: CacheLayout(directory: dir.url))
        #expect(manifest == CacheManifest(formatVersion: Int(EntryHeader.version), hasher: "md5"))
    }

    @Test func entriesWithoutAManifestAreFoundUnderAnotherHasher() async throws {
        let dir = try TemporaryDirectory()
        do {
            let md5 = try DiskCache(directory: dir.url, hasher: MD5Hasher())
            try await md5.store(Data("kept".utf8), forKey: "k")
            await md5.flush()
            await md5.waitForIndex()
        }
        try FileManager.default.removeItem(atPath: CacheManifest.path(in: CacheLayout(directory: dir.url)))
        // The hasher that wrote the entry is unknown: the lookup waits for the scan to re-file it.
        let sha = try DiskCache(directory: dir.url, hasher: SHA256Hasher())
        #expect(try await sha.data(forKey: "k") == Data("kept".utf8))
        #expect(fileExists(sha.fileURL(forKey: "k")))
        #expect(CacheManifest.read(in: CacheLayout(directory: dir.url))?.hasher == "sha256")
    }

    @Test func theManifestRecordsTheFormatVersionAndHasher() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url, hasher: MD5Hasher())
        await cache.waitForIndex()
        let manifest = try #require(CacheManifest.read(in: CacheLayout(directory: dir.url)))
        #expect(manifest == CacheManifest(formatVersion: Int(EntryHeader.version), hasher: "md5"))
    }
}
