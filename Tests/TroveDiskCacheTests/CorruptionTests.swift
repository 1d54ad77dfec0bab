import Foundation
import Testing
import TroveCore
import TroveDiskCache
import TroveTestSupport

@Suite("Damaged entry files")
struct CorruptionTests {
    @Test(arguments: Damage.allCases)
    func aDamagedFileReadsAsAMissAndIsDeleted(damage: Damage) async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url)
        let original = Data(repeating: 0xAB, count: 2000)
        try await cache.store(original, forKey: "key-1")
        await cache.flush()
        await cache.waitForIndex()
        let file = cache.fileURL(forKey: "key-1")
        var bytes = [UInt8](try Data(contentsOf: file))
        damage.apply(to: &bytes)
        try Data(bytes).write(to: file)

        #expect(try await cache.entry(forKey: "key-1") == nil)
        #expect(!fileExists(file))
        let stats = await cache.stats()
        #expect(stats.corrupt == 1)
        #expect(stats.misses == 1)
        #expect(stats.hits == 0)
        #expect(stats.entries == 0)
        #expect(stats.bytes == 0)
        // Storing again works after the damaged file is gone.
        try await cache.store(original, forKey: "key-1")
        await cache.flush()
        #expect(try await cache.data(forKey: "key-1") == original)
    }

    @Test func aDamagedFileFoundByTheOpeningScanIsDeletedAndCounted() async throws {
        let dir = try TemporaryDirectory()
        let first = try DiskCache(directory: dir.url)
        try await first.store(Data("good".utf8), forKey: "good")
        try await first.store(Data("bad".utf8), forKey: "bad")
        await first.flush()
        // The first cache's own opening scan runs in the background; left running, it could find the damage
        // below first and count it there (a fresh clone's run under load once did).
        _ = await first.stats()
        let badFile = first.fileURL(forKey: "bad")
        try Data([1, 2, 3]).write(to: badFile)

        let second = try DiskCache(directory: dir.url)
        let stats = await second.stats()
        #expect(stats.entries == 1)
        #expect(stats.corrupt == 1)
        #expect(!fileExists(badFile))
        #expect(try await second.keys() == ["good"])
    }

    @Test func aHashCollisionIsAMissNeverTheOtherKeysBytes() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url, hasher: CollidingHasher())
        try await cache.store(Data("alpha bytes".utf8), forKey: "alpha")
        await cache.flush()
        #expect(cache.fileURL(forKey: "alpha") == cache.fileURL(forKey: "beta"))

        #expect(try await cache.entry(forKey: "beta") == nil)
        #expect(try await cache.data(forKey: "alpha") == Data("alpha bytes".utf8))
        #expect(try await cache.removeEntry(forKey: "beta") == false)
        #expect(try await cache.data(forKey: "alpha") == Data("alpha bytes".utf8))

        try await cache.store(Data("beta bytes".utf8), forKey: "beta")
        await cache.flush()
        #expect(try await cache.data(forKey: "alpha") == nil)
        #expect(try await cache.data(forKey: "beta") == Data("beta bytes".utf8))
        let stats = await cache.stats()
        #expect(stats.corrupt == 0)
        #expect(stats.entries == 1)
        #expect(try await cache.keys() == ["beta"])
    }
}
