import Foundation
import Testing
import TroveCore
import TroveDiskCache
import TroveTestSupport

@Suite("Compressed entries")
struct CompressionTests {
    @Test func compressibleDataIsStoredCompressedAndReadsBackExactly() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url, compressor: RunLengthCompressor())
        let data = Data(repeating: 7, count: 10_000) + Data(repeating: 9, count: 5_000)
        try await cache.store(data, forKey: "runs")
        await cache.flush()

        #expect(try fileSize(cache.fileURL(forKey: "runs")) < data.count / 10)
        let entry = try #require(try await cache.entry(forKey: "runs"))
        #expect(entry.data == data)
        #expect(entry.compressed)
        // 40 runs of 7s and 20 of 9s (at most 255 long), each a (count, byte) pair.
        #expect(entry.storedBytes == 2 * 60)
        #expect(await cache.stats().compressed == 1)
    }

    @Test func aLevelTheCompressorRefusesFailsTheOpeningAndNamesBoth() throws {
        let dir = try TemporaryDirectory()
        #expect(
            throws: TroveError.invalidConfiguration(
                "compression level 12 does not work with the 'levels' compressor (level 12 is not in 1...3); "
                    + "give a level it accepts, or none for its default")
        ) {
            try DiskCache(
                directory: dir.url, configuration: DiskCacheConfiguration(compressionLevel: 12),
                compressor: LevelCheckingCompressor())
        }
        // A level it accepts, and no level at all, open without an error.
        _ = try DiskCache(
            directory: dir.url, configuration: DiskCacheConfiguration(compressionLevel: 2),
            compressor: LevelCheckingCompressor())
        _ = try DiskCache(directory: dir.url, compressor: LevelCheckingCompressor())
    }

    @Test func incompressibleDataIsStoredAsIs() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url, compressor: RunLengthCompressor())
        let data = incompressibleBytes(4096)
        try await cache.store(data, forKey: "noise")
        await cache.flush()

        let entry = try #require(try await cache.entry(forKey: "noise"))
        #expect(entry.data == data)
        #expect(entry.compressed == false)
        #expect(entry.storedBytes == data.count)
        #expect(try fileSize(cache.fileURL(forKey: "noise")) > data.count)
        #expect(await cache.stats().compressed == 0)
    }

    @Test func entriesNeedTheirCompressorToRead() async throws {
        let dir = try TemporaryDirectory()
        let writer = try DiskCache(directory: dir.url, compressor: RunLengthCompressor())
        let data = Data(repeating: 1, count: 3000)
        try await writer.store(data, forKey: "k")
        await writer.flush()

        // A cache that knows the compressor only as a decompressor still reads the entry.
        let knowing = try DiskCache(directory: dir.url, knownCompressors: [RunLengthCompressor()])
        #expect(try await knowing.data(forKey: "k") == data)

        // One that does not know the id treats the file as corrupt.
        let unaware = try DiskCache(directory: dir.url)
        await unaware.waitForIndex()
        #expect(try await unaware.data(forKey: "k") == nil)
        #expect(await unaware.stats().corrupt == 1)
        #expect(!fileExists(unaware.fileURL(forKey: "k")))
    }

    @Test func twoCompressorsWithOneIdAreRejected() throws {
        struct Impostor: Compressor {
            let name = "impostor"
            let id: UInt8 = 200
            func compress(_ data: Data, level: Int?) throws -> Data { data }
            func decompress(_ data: Data, originalLength: Int) throws -> Data { data }
        }
        let dir = try TemporaryDirectory()
        #expect(
            throws: TroveError.invalidConfiguration(
                "compressors 'impostor' and 'rle-test' share id 200; each needs its own id")
        ) {
            _ = try DiskCache(directory: dir.url, compressor: RunLengthCompressor(), knownCompressors: [Impostor()])
        }
    }
}

/// Accepts levels 1...3 only, as a compressor with a narrow scale would.
struct LevelCheckingCompressor: Compressor {
    let name = "levels"
    let id: UInt8 = 42

    func compress(_ data: Data, level: Int?) throws -> Data {
        if let level, !(1...3).contains(level) {
            throw TroveError.invalidConfiguration("level \(level) is not in 1...3")
        }
        return data
    }

    func decompress(_ data: Data, originalLength: Int) throws -> Data { data }
}
