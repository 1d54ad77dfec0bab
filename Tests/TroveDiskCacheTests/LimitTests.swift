import Foundation
import Testing
import TroveCore
import TroveDiskCache
import TroveTestSupport

@Suite("Limits, eviction and expiry")
struct LimitTests {
    /// Keys of equal length, so every entry file has the same size.
    func key(_ i: Int) -> String { "key-\(String(format: "%02d", i))" }

    /// The on-disk size of an entry of `payload` bytes under a key like `key(_:)`, measured on a scratch cache.
    func entryFileSize(payload: Int) async throws -> Int {
        let dir = try TemporaryDirectory()
        let probe = try DiskCache(directory: dir.url)
        try await probe.store(incompressibleBytes(payload), forKey: key(0))
        await probe.flush()
        return try fileSize(probe.fileURL(forKey: key(0)))
    }

    @Test func storingPastTheByteLimitEvictsLeastRecentlyUsedDownToLowWater() async throws {
        let size = try await entryFileSize(payload: 1000)
        let dir = try TemporaryDirectory()
        // Room for 10.5 entries; low water (80%) keeps 8.
        let cache = try DiskCache(
            directory: dir.url,
            configuration: DiskCacheConfiguration(byteLimit: size * 21 / 2, lowWaterFraction: 0.8))
        await cache.waitForIndex()
        for i in 0..<10 { try await cache.store(incompressibleBytes(1000), forKey: key(i)) }
        await cache.flush()
        #expect(await cache.stats().evictions == 0)
        #expect(await cache.stats().entries == 10)

        // Reading key 0 makes it the most recently used, so keys 1...3 are the victims.
        #expect(try await cache.data(forKey: key(0)) != nil)
        try await cache.store(incompressibleBytes(1000), forKey: key(10))
        await cache.flush()

        let stats = await cache.stats()
        #expect(stats.entries == 8)
        #expect(stats.evictions == 3)
        #expect(stats.bytes == 8 * size)
        #expect(try await cache.keys() == [0, 4, 5, 6, 7, 8, 9, 10].map(key))
        for i in 1...3 { #expect(!fileExists(cache.fileURL(forKey: key(i)))) }
        #expect(try await cache.data(forKey: key(0)) == incompressibleBytes(1000))
        #expect(filesUnder(dir.url.appendingPathComponent("entries")).count == 8)
    }

    @Test func storingPastTheCountLimitEvictsDownToLowWater() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(
            directory: dir.url,
            configuration: DiskCacheConfiguration(countLimit: 10, lowWaterFraction: 0.5))
        await cache.waitForIndex()
        for i in 0..<10 { try await cache.store(Data("value \(i)".utf8), forKey: key(i)) }
        await cache.flush()
        #expect(try await cache.data(forKey: key(2)) != nil)
        try await cache.store(Data("value 10".utf8), forKey: key(10))
        await cache.flush()

        let stats = await cache.stats()
        #expect(stats.entries == 5)
        #expect(stats.evictions == 6)
        #expect(try await cache.keys() == [2, 7, 8, 9, 10].map(key))
    }

    @Test func anEntryOverTheWholeByteLimitIsNotKept() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url, configuration: DiskCacheConfiguration(byteLimit: 1000))
        try await cache.store(Data("small".utf8), forKey: "big")
        try await cache.store(incompressibleBytes(2000), forKey: "big")
        await cache.flush()
        #expect(try await cache.data(forKey: "big") == nil)
        #expect(await cache.stats().entries == 0)
    }

    @Test func anEntryPastItsExpiryDateIsAMissAndIsRemoved() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url)
        try await cache.store(
            Data("stale".utf8), forKey: "old",
            metadata: DiskEntryMetadata(expires: Date().addingTimeInterval(-1)))
        try await cache.store(
            Data("fresh".utf8), forKey: "new",
            metadata: DiskEntryMetadata(expires: Date().addingTimeInterval(3600)))
        await cache.flush()
        #expect(try await cache.keys() == ["new"])
        #expect(try await cache.data(forKey: "old") == nil)
        #expect(!fileExists(cache.fileURL(forKey: "old")))
        #expect(try await cache.data(forKey: "new") == Data("fresh".utf8))
        let stats = await cache.stats()
        #expect(stats.misses == 1)
        #expect(stats.corrupt == 0)
        #expect(stats.entries == 1)
    }

    @Test func anEntryOlderThanMaxAgeIsAMiss() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url, configuration: DiskCacheConfiguration(maxAge: .seconds(3600)))
        try await cache.store(
            Data("old".utf8), forKey: "old",
            metadata: DiskEntryMetadata(created: Date().addingTimeInterval(-7200)))
        try await cache.store(
            Data("young".utf8), forKey: "young",
            metadata: DiskEntryMetadata(created: Date().addingTimeInterval(-60)))
        await cache.flush()
        #expect(try await cache.data(forKey: "old") == nil)
        #expect(!fileExists(cache.fileURL(forKey: "old")))
        #expect(try await cache.data(forKey: "young") == Data("young".utf8))
    }

    @Test func trimToBytesEvictsUntilUnderTheTarget() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url)
        for i in 0..<6 { try await cache.store(incompressibleBytes(500), forKey: key(i)) }
        await cache.flush()
        let size = try fileSize(cache.fileURL(forKey: key(0)))
        #expect(await cache.trim(toBytes: 2 * size) == 4)
        #expect(try await cache.keys() == [4, 5].map(key))
        #expect(await cache.stats().bytes == 2 * size)
    }

    @Test func badLimitsAreRejected() throws {
        let dir = try TemporaryDirectory()
        #expect(throws: TroveError.invalidConfiguration("disk cache byteLimit must be positive, got 0")) {
            _ = try DiskCache(directory: dir.url, configuration: DiskCacheConfiguration(byteLimit: 0))
        }
        #expect(throws: TroveError.invalidConfiguration("disk cache lowWaterFraction must be in (0, 1], got 1.5")) {
            _ = try DiskCache(directory: dir.url, configuration: DiskCacheConfiguration(lowWaterFraction: 1.5))
        }
    }
}
