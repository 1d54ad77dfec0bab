import Foundation
import Testing
import TroveCore
import TroveEviction
import TroveTestSupport

@testable import TroveDiskCache

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// `DiskEntryWriter`: an entry stored while its payload arrives, piece by piece, never whole in memory.
@Suite("Streamed stores")
struct StreamedStoreTests {
    static let response = ResponseMetadata(
        url: URL(string: "https://example.com/photo.png")!, contentType: "image/png",
        validators: Validators(etag: "\"v7\"", lastModified: "Tue, 24 Nov 2026 10:00:00 GMT"))

    static let metadata = DiskEntryMetadata(
        validators: response.validators, contentType: "image/png",
        expires: Date(timeIntervalSinceReferenceDate: 900_000_000), mustRevalidate: true)

    /// Distinct bytes, so a piece out of place would show; starts like a PNG (a compressed image format).
    static func payload(_ count: Int) -> Data {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        data.append(contentsOf: (0..<max(0, count - 8)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 11) })
        return data
    }

    /// Writes `payload` in pieces of `pieceSize` bytes.
    static func write(_ payload: Data, to writer: DiskEntryWriter, pieceSize: Int = 7_000) throws {
        try writer.begin(response)
        for start in stride(from: 0, to: payload.count, by: pieceSize) {
            try payload[start..<min(start + pieceSize, payload.count)].withUnsafeBytes { try writer.write($0) }
        }
    }

    static func temporaryFiles(_ dir: TemporaryDirectory) throws -> [URL] {
        try temporaryLeftovers(in: dir).map { dir.url.appendingPathComponent("tmp/\($0)") }
    }

    @Test func theEntryIsInvisibleUntilCommittedThenReadsBackWithItsMetadata() async throws {
        let dir = try TemporaryDirectory()
        let cache = try makeCache(at: dir)
        let payload = Self.payload(300_000)
        let writer = cache.entryWriter(forKey: "photo")
        try Self.write(payload, to: writer)

        // Everything written is in the temp file already; no entry, no file under entries/.
        #expect(writer.bytesWritten == payload.count)
        #expect(writer.leadingBytes == payload.prefix(DiskEntryWriter.leadingByteCount))
        let temporary = try Self.temporaryFiles(dir)
        #expect(temporary.count == 1)
        #expect(try fileSize(try #require(temporary.first)) > payload.count)
        #expect(try await cache.entry(forKey: "photo") == nil)
        #expect(!fileExists(cache.fileURL(forKey: "photo")))

        try await writer.commitNow(metadata: Self.metadata)
        #expect(try temporaryLeftovers(in: dir) == [])
        let entry = try #require(try await cache.entry(forKey: "photo", includingStale: true))
        #expect(entry.data == payload)
        #expect(entry.metadata.validators == Self.metadata.validators)
        #expect(entry.metadata.contentType == "image/png")
        #expect(entry.metadata.expires == Self.metadata.expires)
        #expect(entry.metadata.mustRevalidate)
        #expect(await cache.stats().entries == 1)

        // Another process checks the payload's CRC: the incremental one is the whole payload's.
        let reopened = try DiskCache(directory: dir.url)
        #expect(try await reopened.verify() == DiskCacheVerification(checked: 1, corrupt: 0, removed: 0))
        #expect(try await reopened.entry(forKey: "photo", includingStale: true)?.data == payload)
    }

    @Test func aDiscardedOrDroppedWriterLeavesThePreviousEntryAndNoTempFile() async throws {
        let dir = try TemporaryDirectory()
        let cache = try makeCache(at: dir)
        let previous = Data(repeating: 0x11, count: 3_000)
        try await cache.storeNow(previous, forKey: "photo")

        let discarded = cache.entryWriter(forKey: "photo")
        try Self.write(Self.payload(100_000), to: discarded)
        discarded.discard()
        #expect(try temporaryLeftovers(in: dir) == [])
        // A piece that arrives after the discard (a cancelled fetch's last one) is refused, not written.
        #expect(throws: TroveError.cancelled) {
            try Data([1, 2, 3]).withUnsafeBytes { try discarded.write($0) }
        }
        #expect(try temporaryLeftovers(in: dir) == [])

        do {
            let dropped = cache.entryWriter(forKey: "photo")
            try Self.write(Self.payload(100_000), to: dropped)
            #expect(try temporaryLeftovers(in: dir).count == 1)
        }
        #expect(try temporaryLeftovers(in: dir) == [])
        #expect(try await cache.data(forKey: "photo") == previous)
    }

    /// The same faults a whole-entry write meets, met while streaming or committing: each surfaces as what
    /// failed, the previous entry is still served, and no temp file is left.
    @Test(arguments: WriteFault.allCases)
    func aFailedStreamedWriteKeepsThePreviousEntry(fault: WriteFault) async throws {
        let previous = Data(repeating: 0x11, count: 3_000)
        let (dir, files, cache) = try await faultyCacheHoldingAnEntry(previous, fault: fault)
        let writer = cache.entryWriter(forKey: "photo")
        let error = await #expect(throws: TroveError.self) {
            do {
                try Self.write(Self.payload(5_000), to: writer)
                try await writer.commitNow(metadata: Self.metadata)
            } catch {
                writer.discard()
                throw error
            }
        }
        switch error {
        case .diskFull?: #expect(fault.isDiskFull)
        case let .ioFailed(_, reason)?: #expect(!fault.isDiskFull && reason == "\(fault.operation): Input/output error")
        default: Issue.record("expected diskFull or ioFailed, got \(String(describing: error))")
        }
        #expect(try await cache.data(forKey: "photo") == previous)
        #expect(try temporaryLeftovers(in: dir) == [])

        files.heal()
        let again = cache.entryWriter(forKey: "photo")
        try Self.write(Self.payload(5_000), to: again)
        try await again.commitNow(metadata: Self.metadata)
        #expect(try await cache.entry(forKey: "photo", includingStale: true)?.data == Self.payload(5_000))
    }

    /// The latest store wins: a commit replaces a write-behind store of the key still in the queue.
    @Test func aCommitReplacesAQueuedStoreOfTheKey() async throws {
        let dir = try TemporaryDirectory()
        let cache = try makeCache(at: dir)
        let writer = cache.entryWriter(forKey: "photo")
        try Self.write(Self.payload(50_000), to: writer)
        try await cache.store(Data(repeating: 0x22, count: 1_000), forKey: "photo")
        await writer.commit(metadata: DiskEntryMetadata())
        await cache.flush()
        #expect(try await cache.data(forKey: "photo") == Self.payload(50_000))
    }

    /// `commit` is write-behind: it returns before the entry is in place, yet a read of the key waits for it
    /// and sees it; `flush()` waits for it, and a commit that fails is counted and keeps the previous entry.
    @Test func aWriteBehindCommitIsSeenByReadsAndAFailedOneIsCounted() async throws {
        let dir = try TemporaryDirectory()
        let files = FaultyFileSystem()
        let cache = try makeCache(at: dir, files: files)
        let first = cache.entryWriter(forKey: "photo")
        try Self.write(Self.payload(80_000), to: first)
        await first.commit(metadata: DiskEntryMetadata())
        #expect(try await cache.data(forKey: "photo") == Self.payload(80_000))

        files.inject(.rename, errno: EIO, whenPathContains: dir.url.standardizedFileURL.path + "/tmp/")
        let failing = cache.entryWriter(forKey: "photo")
        try Self.write(Self.payload(10_000), to: failing)
        await failing.commit(metadata: DiskEntryMetadata())
        await cache.flush()
        #expect(await cache.stats().failedWrites == 1)
        #expect(try await cache.data(forKey: "photo") == Self.payload(80_000))
        #expect(try temporaryLeftovers(in: dir) == [])
    }

    /// A write-behind commit that takes the cache over its count limit sets off a trim, and `flush()` waits
    /// for it: the commit ends when the trim does, whichever thread the trim runs on.
    @Test func aCommitOverTheCountLimitTrimsBeforeFlushReturns() async throws {
        let dir = try TemporaryDirectory()
        let cache = try makeCache(at: dir, configuration: DiskCacheConfiguration(countLimit: 4, lowWaterFraction: 0.5))
        await cache.waitForIndex()
        for number in 0..<5 {
            let writer = cache.entryWriter(forKey: "photo-\(number)")
            try Self.write(Self.payload(5_000 + number), to: writer)
            // The validators it began with: the header fits its room, so the commit runs on this thread.
            await writer.commit(metadata: Self.metadata)
        }
        await cache.flush()
        // Over 4 entries, down to the low-water mark (2), oldest first.
        #expect(await cache.stats().entries == 2)
        #expect(try await cache.data(forKey: "photo-4") == Self.payload(5_004))
        #expect(try await cache.data(forKey: "photo-0") == nil)
    }

    @Test func anEntryOverTheByteLimitIsNotKept() async throws {
        let dir = try TemporaryDirectory()
        let cache = try makeCache(at: dir, configuration: DiskCacheConfiguration(byteLimit: 20_000))
        try await cache.storeNow(Data(repeating: 0x11, count: 1_000), forKey: "photo")
        let writer = cache.entryWriter(forKey: "photo")
        try Self.write(Self.payload(30_000), to: writer)
        try await writer.commitNow(metadata: DiskEntryMetadata())
        #expect(try await cache.data(forKey: "photo") == nil)
        #expect(try temporaryLeftovers(in: dir) == [])
        #expect(await cache.stats().entries == 0)
    }

    /// A payload the cache's compressor may shrink (no compressed image) is stored as `store` would store
    /// it; so is one committed with other validators than the writer began with (another header length).
    @Test func aCompressiblePayloadOrChangedMetadataIsStoredTheOrdinaryWay() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(
            directory: dir.url, configuration: DiskCacheConfiguration(), hasher: SHA256Hasher(),
            compressor: RunLengthCompressor(), knownCompressors: [], evictionPolicy: LRUPolicyFactory(),
            fileSystem: PosixFileSystem())
        let runs = Data(repeating: 0x41, count: 40_000)
        let writer = cache.entryWriter(forKey: "runs")
        try writer.begin(Self.response)
        try runs.withUnsafeBytes { try writer.write($0) }
        try await writer.commitNow(metadata: DiskEntryMetadata(contentType: "text/plain"))
        let entry = try #require(try await cache.entry(forKey: "runs"))
        #expect(entry.data == runs && entry.compressed && entry.metadata.contentType == "text/plain")

        let photo = Self.payload(20_000)
        let changed = cache.entryWriter(forKey: "photo")
        try Self.write(photo, to: changed)
        var metadata = DiskEntryMetadata(contentType: "image/png")
        metadata.validators = Validators(etag: "\"a much longer entity tag than the one the writer began with\"")
        try await changed.commitNow(metadata: metadata)
        let stored = try #require(try await cache.entry(forKey: "photo"))
        #expect(stored.data == photo && !stored.compressed && stored.metadata.validators == metadata.validators)
        #expect(try temporaryLeftovers(in: dir) == [])
    }

    /// A response's connection fields (`Connection`, `Keep-Alive`) are not kept with it, so the header the
    /// writer leaves room for is the one the commit writes: the payload is never read back and written again.
    @Test func aResponsesConnectionFieldsDoNotMakeTheCommitRewriteThePayload() async throws {
        let dir = try TemporaryDirectory()
        let files = FaultyFileSystem()
        let cache = try makeCache(at: dir, files: files)
        var response = Self.response
        let kept = [HeaderField(name: "Cache-Control", value: "max-age=600")]
        response.headerFields =
            kept + [
                HeaderField(name: "Connection", value: "keep-alive"),
                HeaderField(name: "Keep-Alive", value: "timeout=5")
            ]
        let photo = Self.payload(60_000)
        let writer = cache.entryWriter(forKey: "photo")
        try writer.begin(response)
        try photo.withUnsafeBytes { try writer.write($0) }
        // What the pipeline commits: the response's fields as a cache keeps them.
        var metadata = Self.metadata
        metadata.headerFields = response.headerFields.storedWithResponse
        let readsBefore = files.blockingReads
        try await writer.commitNow(metadata: metadata)
        #expect(files.blockingReads == readsBefore)
        let entry = try #require(try await cache.entry(forKey: "photo"))
        #expect(entry.data == photo && entry.metadata.headerFields == kept)
        #expect(try temporaryLeftovers(in: dir) == [])
    }

    /// Past 1 MiB a compressible payload is kept as it came: commits run behind the fetches, and reading
    /// every big body of a batch back into memory to compress it would undo the streaming.
    @Test func aCompressiblePayloadOverOneMebibyteIsKeptAsItCame() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(
            directory: dir.url, configuration: DiskCacheConfiguration(), hasher: SHA256Hasher(),
            compressor: RunLengthCompressor(), knownCompressors: [], evictionPolicy: LRUPolicyFactory(),
            fileSystem: PosixFileSystem())
        let runs = Data(repeating: 0x41, count: DiskEntryWriter.largestReadBack + 1)
        let writer = cache.entryWriter(forKey: "big-runs")
        try writer.begin(Self.response)
        try runs.withUnsafeBytes { try writer.write($0) }
        // The metadata the writer began with (a header of the same length), so only the size decides.
        try await writer.commitNow(metadata: Self.metadata)
        let entry = try #require(try await cache.entry(forKey: "big-runs"))
        #expect(entry.data == runs && !entry.compressed && entry.storedBytes == runs.count)
    }

    /// Calls out of order are errors that name what happened, never a stopped process: a piece before the
    /// head, a head after a discard (a cancelled fetch), a commit of a writer never begun.
    @Test func callsOutOfOrderAreErrorsNotCrashes() async throws {
        let dir = try TemporaryDirectory()
        let cache = try makeCache(at: dir)
        let early = cache.entryWriter(forKey: "photo")
        let piece = #expect(throws: TroveError.self) {
            try Data([1, 2, 3]).withUnsafeBytes { try early.write($0) }
        }
        #expect(piece?.description.contains("a body piece reached the disk entry before its head") == true)
        let notBegun = await #expect(throws: TroveError.self) {
            try await early.commitNow(metadata: Self.metadata)
        }
        #expect(notBegun?.description.contains("commits once, after its body began") == true)

        let cancelled = cache.entryWriter(forKey: "photo")
        cancelled.discard()
        #expect(throws: TroveError.cancelled) { try cancelled.begin(Self.response) }
        #expect(try temporaryLeftovers(in: dir) == [])
        #expect(try await cache.entry(forKey: "photo") == nil)
    }

    /// The memo of entry locations keeps short keys only, so callers choosing long keys (URLs) cannot make
    /// it large; a long key still finds its entry.
    @Test func onlyKeysUpToOneKibibyteHaveTheirLocationRemembered() async throws {
        let dir = try TemporaryDirectory()
        let cache = try makeCache(at: dir)
        let long = "https://example.com/" + String(repeating: "a", count: DiskCache.longestRememberedKey)
        try await cache.storeNow(Data([1, 2, 3]), forKey: long)
        try await cache.storeNow(Data([4, 5]), forKey: "short")
        #expect(try await cache.data(forKey: long) == Data([1, 2, 3]))
        #expect(try await cache.data(forKey: "short") == Data([4, 5]))
        #expect(cache.locations.count == 1)
        #expect(cache.location(forKey: long).name == CacheLayout.fileName(forHash: SHA256Hasher().hash(long)))
    }

    @Test func aHeaderFieldTooLongForTheFormatIsRefusedAtTheStart() async throws {
        let dir = try TemporaryDirectory()
        let cache = try makeCache(at: dir)
        var response = Self.response
        response.contentType = String(repeating: "x", count: 70_000)
        let writer = cache.entryWriter(forKey: "photo")
        let error = #expect(throws: TroveError.self) { try writer.begin(response) }
        #expect(error?.description.contains("the content type is 70000 bytes") == true)
        #expect(try temporaryLeftovers(in: dir) == [])
    }
}
