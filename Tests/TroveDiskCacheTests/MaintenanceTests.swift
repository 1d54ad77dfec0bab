import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveDiskCache

@Suite("Removal, listing, temp sweeping and write failures")
struct MaintenanceTests {
    @Test func removeEntryRemovesOnlyThatKey() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url)
        try await cache.store(Data("a".utf8), forKey: "a")
        try await cache.store(Data("b".utf8), forKey: "b")
        await cache.flush()

        #expect(try await cache.removeEntry(forKey: "a"))
        #expect(try await cache.removeEntry(forKey: "a") == false)
        #expect(try await cache.data(forKey: "a") == nil)
        #expect(!fileExists(cache.fileURL(forKey: "a")))
        #expect(try await cache.data(forKey: "b") == Data("b".utf8))
        #expect(try await cache.keys() == ["b"])
        #expect(await cache.stats().entries == 1)
    }

    @Test func removeAllEmptiesTheCacheAndItStillWorks() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url)
        for key in ["x", "y", "z"] { try await cache.store(Data(key.utf8), forKey: key) }
        await cache.flush()
        try await cache.removeAll()

        #expect(try await cache.keys() == [])
        let stats = await cache.stats()
        #expect(stats.entries == 0)
        #expect(stats.bytes == 0)
        // Only the directory's manifest (its format version and hasher) is left.
        #expect(filesUnder(dir.url).map(\.lastPathComponent) == ["manifest.json"])
        #expect(try await cache.data(forKey: "x") == nil)

        try await cache.store(Data("again".utf8), forKey: "x")
        await cache.flush()
        #expect(try await cache.data(forKey: "x") == Data("again".utf8))
        #expect(try await cache.keys() == ["x"])
    }

    @Test func staleTempFilesAreSweptAtOpenAndFreshOnesKept() async throws {
        let dir = try TemporaryDirectory()
        let tmp = dir.url.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(
            at: tmp.appendingPathComponent("removed-old"),
            withIntermediateDirectories: true)
        let stale = tmp.appendingPathComponent("abcd.leftover")
        let staleInDirectory = tmp.appendingPathComponent("removed-old/entry")
        let fresh = tmp.appendingPathComponent("efgh.in-progress")
        for file in [stale, staleInDirectory, fresh] { try Data("partial".utf8).write(to: file) }
        let twoMinutesAgo = Date().addingTimeInterval(-120)
        for path in [stale.path, tmp.appendingPathComponent("removed-old").path] {
            try FileManager.default.setAttributes([.modificationDate: twoMinutesAgo], ofItemAtPath: path)
        }

        let cache = try DiskCache(directory: dir.url)
        await cache.waitForIndex()
        #expect(!fileExists(stale))
        #expect(!fileExists(tmp.appendingPathComponent("removed-old")))
        #expect(fileExists(fresh))
        #expect(await cache.stats().entries == 0)
    }

    @Test func aFailedStoreLeavesThePreviousEntryIntact() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url)
        try await cache.store(Data("version 1".utf8), forKey: "k")
        await cache.flush()
        // Replace tmp/ with a plain file: creating the temp file now fails with ENOTDIR.
        let tmp = dir.url.appendingPathComponent("tmp")
        try FileManager.default.removeItem(at: tmp)
        try Data().write(to: tmp)

        await #expect {
            try await cache.storeNow(Data("version 2".utf8), forKey: "k")
        } throws: { error in
            guard case let .ioFailed(path, reason)? = error as? TroveError else { return false }
            return path.hasPrefix(tmp.path + "/") && reason == "create: Not a directory"
        }
        #expect(try await cache.data(forKey: "k") == Data("version 1".utf8))
        #expect(filesUnder(dir.url.appendingPathComponent("entries")).count == 1)
        #expect(await cache.stats().entries == 1)
    }

    @Test func writeErrorsTellAFullDiskApart() {
        #expect(FileOps.error("write", path: "/c/tmp/x", code: ENOSPC) == .diskFull(path: "/c/tmp/x"))
        #expect(FileOps.error("write", path: "/c/tmp/x", code: EDQUOT) == .diskFull(path: "/c/tmp/x"))
        let other = FileOps.error("write", path: "/c/tmp/x", code: EIO)
        #expect(other == .ioFailed(path: "/c/tmp/x", reason: "write: Input/output error"))
        #expect(
            TroveError.diskFull(path: "/c/tmp/x").description
                == "no space left on the device writing /c/tmp/x; free space or lower the cache's byte limit")
    }

    @Test func statsCountHitsAndMisses() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url)
        try await cache.store(Data("1".utf8), forKey: "one")
        await cache.flush()
        for _ in 0..<3 { _ = try await cache.data(forKey: "one") }
        for _ in 0..<2 { _ = try await cache.data(forKey: "none") }
        let stats = await cache.stats()
        #expect(stats.hits == 3)
        #expect(stats.misses == 2)
        #expect(stats.limitBytes == 500 << 20)
    }
    @Test func verifyReadsEveryEntryAndRemovesDamagedOnes() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url)
        for key in ["a", "b", "c"] { try await cache.store(Data(repeating: 5, count: 100), forKey: key) }
        await cache.flush()
        await cache.waitForIndex()
        // Damage b's payload: only a full read (not the header scan) can notice.
        let damaged = cache.fileURL(forKey: "b")
        var bytes = [UInt8](try Data(contentsOf: damaged))
        bytes[bytes.count - 1] ^= 0xFF
        try Data(bytes).write(to: damaged)

        #expect(try await cache.verify() == DiskCacheVerification(checked: 3, corrupt: 1, removed: 1))
        #expect(!fileExists(damaged))
        #expect(try await cache.keys() == ["a", "c"])
        #expect(await cache.stats().corrupt == 1)
        #expect(try await cache.verify() == DiskCacheVerification(checked: 2, corrupt: 0, removed: 0))
    }

    @Test func removeEntriesCreatedBeforeADate() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url)
        let now = Date()
        for (key, age) in [("old1", 3.0), ("old2", 2.0), ("new", 0.0)] {
            try await cache.store(
                Data(key.utf8), forKey: key,
                metadata: DiskEntryMetadata(created: now.addingTimeInterval(-age * 86_400)))
        }
        await cache.flush()
        #expect(try await cache.removeEntries(createdBefore: now.addingTimeInterval(-86_400)) == 2)
        #expect(try await cache.keys() == ["new"])
        #expect(filesUnder(dir.url.appendingPathComponent("entries")).count == 1)
    }
}
