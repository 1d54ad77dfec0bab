import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveDiskCache

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Hits served on the caller's thread by reads that cannot wait for the disk, and the fall back to the
/// I/O queue whenever those reads cannot finish.
@Suite("Reads that never wait for the disk")
struct CachedOnlyReadTests {
    #if os(Linux)
        @Test func aHitInThePageCacheIsServedWithoutABlockingRead() async throws {
            let dir = try TemporaryDirectory()
            let files = FaultyFileSystem()
            let cache = try makeCache(at: dir, files: files)
            let bytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try await cache.store(bytes, forKey: "photo")  // just written, so its pages are cached
            await cache.flush()

            #expect(try await cache.data(forKey: "photo") == bytes)
            #expect(files.cachedOnlyReads >= 1)
            #expect(files.blockingReads == 0)
            #expect(await cache.stats().hits == 1)
        }
    #endif

    @Test func whenTheCachedOnlyReadWouldWaitTheQueueServesTheSameBytes() async throws {
        let dir = try TemporaryDirectory()
        let files = FaultyFileSystem()
        let cache = try makeCache(at: dir, files: files)
        let bytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try await cache.store(bytes, forKey: "photo")
        await cache.flush()

        files.inject(.readIfCached, errno: EAGAIN)
        #expect(try await cache.data(forKey: "photo") == bytes)
        #expect(files.cachedOnlyReads == 0)
        #expect(files.blockingReads >= 1)
        let stats = await cache.stats()
        #expect(stats.hits == 1 && stats.misses == 0)
    }

    /// The first read takes 4 KiB: files just under, at and over that size, and a header longer than it
    /// (a long ETag), must read back exactly, by either kind of read.
    @Test(arguments: [false, true])
    func entriesAroundTheFirstReadSizeRoundTrip(forceQueue: Bool) async throws {
        let dir = try TemporaryDirectory()
        let files = FaultyFileSystem()
        let cache = try makeCache(at: dir, files: files)
        if forceQueue { files.inject(.readIfCached, errno: EAGAIN) }
        let key = "k"
        let headerBytes = EntryHeader(
            compressorID: 0, storedLength: 0, originalLength: 0, payloadCRC: 0, created: Date(),
            expires: nil, key: key, etag: nil, lastModified: nil, contentType: nil
        ).encoded().count
        var cases: [(payload: Int, etag: String?)] = [4095, 4096, 4097].map { ($0 - headerBytes, nil) }
        cases += [(0, String(repeating: "e", count: 5_000)), (20_000, String(repeating: "e", count: 9_000))]
        for (index, (size, etag)) in cases.enumerated() {
            let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &+ index) })
            let metadata = DiskEntryMetadata(validators: Validators(etag: etag, lastModified: nil))
            try await cache.store(bytes, forKey: key, metadata: metadata)
            await cache.flush()
            let entry = try #require(try await cache.entry(forKey: key), "case \(index)")
            #expect(entry.data == bytes, "case \(index): \(size) payload bytes")
            #expect(entry.metadata.validators.etag == etag, "case \(index)")
        }
        #expect(await cache.stats().corrupt == 0)
    }

    /// Files over `EntryFile.wholeReadWithoutHeaderCheck` take the path that checks the header before the
    /// whole-file read: a real entry that big still round-trips, and a file that size without a header is
    /// reported as damage and never returned.
    @Test func bigFilesAreReadOnlyAfterTheirHeaderChecksOut() async throws {
        let dir = try TemporaryDirectory()
        let cache = try makeCache(at: dir, files: FaultyFileSystem())
        let size = EntryFile.wholeReadWithoutHeaderCheck + 1_000
        let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 16) })
        try await cache.store(bytes, forKey: "big")
        await cache.flush()
        #expect(try await cache.data(forKey: "big") == bytes)

        let path = cache.fileURL(forKey: "big").path
        try Data(repeating: 0x5A, count: size + 200).write(to: URL(fileURLWithPath: path))
        #expect(try await cache.data(forKey: "big") == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(await cache.stats().corrupt == 1)
    }

    @Test func damageFoundByACachedOnlyReadIsHandledOnTheQueue() async throws {
        let dir = try TemporaryDirectory()
        let files = FaultyFileSystem()
        let cache = try makeCache(at: dir, files: files)
        try await cache.store(Data(repeating: 42, count: 50_000), forKey: "doc")
        await cache.flush()
        let path = cache.fileURL(forKey: "doc").path
        var raw = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        raw[raw.count - 10] ^= 0xFF
        try Data(raw).write(to: URL(fileURLWithPath: path))

        #expect(try await cache.data(forKey: "doc") == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        let stats = await cache.stats()
        #expect(stats.corrupt == 1 && stats.misses == 1 && stats.hits == 0)
    }
}
