import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveDiskCache

/// `DiskCacheStats.corrupt` counts each damaged entry once, however many found it: lookups reading it at the
/// same time, the opening scan and the lookups after it, and every lookup of what cannot be deleted.
@Suite("Counting each damaged entry once")
struct CorruptCountingTests {
    static let bytes = Data(repeating: 0xAB, count: 2000)

    /// Stores `key` in `cache`, waits for the opening scan, and damages the entry's file in place.
    static func storeDamaged(_ key: String, in cache: DiskCache) async throws -> URL {
        try await cache.store(bytes, forKey: key)
        await cache.flush()
        await cache.waitForIndex()
        let file = cache.fileURL(forKey: key)
        var damaged = [UInt8](try Data(contentsOf: file))
        Damage.flipPayloadByte.apply(to: &damaged)
        try overwriteInPlace(file, with: damaged)
        return file
    }

    /// Puts an empty directory where `file` was: a damaged entry no unlink can delete.
    static func replaceWithDirectory(_ file: URL) throws {
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
    }

    @Test func aDamagedFileTwoLookupsReadAtOnceCountsOnce() async throws {
        let dir = try TemporaryDirectory()
        let files = RendezvousFileSystem()
        let cache = try makeCache(at: dir, files: files)
        let file = try await Self.storeDamaged("k", in: cache)

        // Both have the file open before either deletes it; the second finds it gone.
        files.arm(parties: 2)
        async let first = cache.entry(forKey: "k")
        async let second = cache.entry(forKey: "k")
        #expect(try await first == nil)
        #expect(try await second == nil)
        #expect(files.allMet)
        #expect(!fileExists(file))
        let stats = await cache.stats()
        #expect(stats.corrupt == 1)
        #expect(stats.misses == 2)
    }

    /// Every lookup misses; the verify after them reports it as found but not deleted.
    @Test func aDirectoryWhereAnEntryWasCountsOnceHoweverOftenItIsRead() async throws {
        let dir = try TemporaryDirectory()
        let cache = try makeCache(at: dir)
        try Self.replaceWithDirectory(try await Self.storeDamaged("k", in: cache))

        for _ in 0..<3 { #expect(try await cache.data(forKey: "k") == nil) }
        let stats = await cache.stats()
        #expect(stats.corrupt == 1)
        #expect(stats.misses == 3)
        #expect(try await cache.verify() == DiskCacheVerification(checked: 1, corrupt: 1, removed: 0))
        #expect(await cache.stats().corrupt == 1)
    }

    @Test func aDirectoryTheOpeningScanFoundCountsOnceWhenLookupsFindItAgain() async throws {
        let dir = try TemporaryDirectory()
        let first = try makeCache(at: dir)
        try Self.replaceWithDirectory(try await Self.storeDamaged("k", in: first))

        let second = try makeCache(at: dir)
        await second.waitForIndex()
        #expect(await second.stats().corrupt == 1)
        for _ in 0..<2 { #expect(try await second.data(forKey: "k") == nil) }
        #expect(await second.stats().corrupt == 1)
    }

    /// A delete that fails (then works) leaves the file to be found again: counted when first found only.
    @Test func aDamagedFileThatCannotBeDeletedCountsOnceBeforeAndAfterItGoes() async throws {
        let dir = try TemporaryDirectory()
        let files = FaultyFileSystem()
        let cache = try makeCache(at: dir, files: files)
        let file = try await Self.storeDamaged("k", in: cache)

        files.inject(.unlink, errno: EIO, whenPathContains: "/entries/")
        for _ in 0..<2 { #expect(try await cache.data(forKey: "k") == nil) }
        #expect(fileExists(file))
        #expect(await cache.stats().corrupt == 1)

        files.heal()
        #expect(try await cache.data(forKey: "k") == nil)
        #expect(!fileExists(file))
        #expect(await cache.stats().corrupt == 1)
    }
}
