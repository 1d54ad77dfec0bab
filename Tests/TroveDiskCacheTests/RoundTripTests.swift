import Foundation
import Testing
import TroveCore
import TroveDiskCache
import TroveTestSupport

@Suite("Disk cache round trips")
struct RoundTripTests {
    let metadata = DiskEntryMetadata(
        validators: Validators(etag: "\"v1-abc\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT"),
        contentType: "image/png", created: Date(), expires: Date().addingTimeInterval(3600))

    @Test func storesAndReadsBytesAndMetadata() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url)
        let data = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 * 31) })
        try await cache.store(data, forKey: "https://example.com/a.png", metadata: metadata)
        await cache.flush()

        let entry = try #require(try await cache.entry(forKey: "https://example.com/a.png"))
        #expect(entry.key == "https://example.com/a.png")
        #expect(entry.data == data)
        #expect(entry.metadata == metadata)
        #expect(entry.compressed == false)
        #expect(entry.storedBytes == data.count)
        #expect(try await cache.data(forKey: "https://example.com/b.png") == nil)

        let stats = await cache.stats()
        #expect(stats.entries == 1)
        #expect(stats.bytes == (try fileSize(cache.fileURL(forKey: "https://example.com/a.png"))))
        #expect(stats.hits == 1)
        #expect(stats.misses == 1)
        #expect(stats.corrupt == 0)
    }

    @Test func aSecondInstanceReadsWhatTheFirstWrote() async throws {
        let dir = try TemporaryDirectory()
        let first = try DiskCache(directory: dir.url)
        try await first.store(Data("hello".utf8), forKey: "k1", metadata: metadata)
        try await first.store(Data(), forKey: "empty")
        await first.flush()

        let second = try DiskCache(directory: dir.url)
        let entry = try #require(try await second.entry(forKey: "k1"))
        #expect(entry.data == Data("hello".utf8))
        #expect(entry.metadata == metadata)
        #expect(try await second.data(forKey: "empty") == Data())
        let stats = await second.stats()
        #expect(stats.entries == 2)
        #expect(try await second.keys() == ["empty", "k1"])
    }

    @Test func storingAgainReplacesTheEntry() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url)
        try await cache.store(Data("old".utf8), forKey: "k")
        try await cache.store(Data("newer bytes".utf8), forKey: "k")
        await cache.flush()
        #expect(try await cache.data(forKey: "k") == Data("newer bytes".utf8))
        let stats = await cache.stats()
        #expect(stats.entries == 1)
        #expect(stats.bytes == (try fileSize(cache.fileURL(forKey: "k"))))
        #expect(filesUnder(dir.url.appendingPathComponent("tmp")).isEmpty)
    }

    @Test func updateMetadataKeepsTheBytesAndReplacesTheDates() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url)
        let old = DiskEntryMetadata(
            validators: Validators(etag: "\"v1\""), contentType: "image/gif",
            created: Date().addingTimeInterval(-3600))
        try await cache.store(Data("payload".utf8), forKey: "k", metadata: old)
        await cache.flush()
        let refreshed = DiskEntryMetadata(
            validators: Validators(etag: "\"v2\"", lastModified: "yesterday"),
            contentType: "image/gif", created: Date(),
            expires: Date().addingTimeInterval(60))
        #expect(try await cache.updateMetadata(forKey: "k", refreshed))
        let entry = try #require(try await cache.entry(forKey: "k"))
        #expect(entry.data == Data("payload".utf8))
        #expect(entry.metadata == refreshed)
        #expect(try await cache.updateMetadata(forKey: "missing", refreshed) == false)
        #expect(await cache.stats().entries == 1)
    }
    @Test func storesWithFsyncRoundTrip() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url, configuration: DiskCacheConfiguration(fsync: true))
        try await cache.store(Data("durable".utf8), forKey: "k", metadata: metadata)
        await cache.flush()
        let entry = try #require(try await cache.entry(forKey: "k"))
        #expect(entry.data == Data("durable".utf8))
        #expect(entry.metadata == metadata)
    }
}
