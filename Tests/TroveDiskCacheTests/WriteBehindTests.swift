import Foundation
import Synchronization
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

/// A cache whose writes wait at `files`' gate while it is shut.
private func gatedCache(
    at dir: TemporaryDirectory, configuration: DiskCacheConfiguration = .init()
) throws -> (DiskCache, GatedFileSystem) {
    let files = GatedFileSystem(cacheDirectory: dir.url)
    let cache = try makeCache(at: dir, files: files, configuration: configuration)
    return (cache, files)
}

@Suite("Write-behind stores", .timeLimit(.minutes(1)))
struct WriteBehindTests {
    @Test func aStoreReturnsBeforeItsWriteLandsAndReadsSeeTheQueuedBytes() async throws {
        let dir = try TemporaryDirectory()
        let (cache, files) = try gatedCache(at: dir)
        files.shut()
        let bytes = Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let metadata = DiskEntryMetadata(contentType: "image/png", expires: Date().addingTimeInterval(60))
        try await cache.store(bytes, forKey: "photo", metadata: metadata)
        await files.waitForArrivals(1)  // the writer holds it, stopped at the gate

        #expect(!fileExists(cache.fileURL(forKey: "photo")))
        let entry = try #require(try await cache.entry(forKey: "photo"))
        #expect(entry.data == bytes)
        #expect(entry.metadata == metadata)
        #expect(await cache.freshEntrySize(forKey: "photo") == bytes.count)

        files.open()
        await cache.flush()
        #expect(files.installs(at: cache.fileURL(forKey: "photo").path) == 1)
        #expect(try await DiskCache(directory: dir.url).data(forKey: "photo") == bytes)
    }

    @Test func storesOfOneQueuedKeyCoalesceIntoOneWriteOfTheLatest() async throws {
        let dir = try TemporaryDirectory()
        let (cache, files) = try gatedCache(at: dir)
        files.shut()
        try await cache.store(Data("held".utf8), forKey: "first")
        await files.waitForArrivals(1)  // the writer is busy with "first"; the rest queue behind it
        for version in 1...5 {
            try await cache.store(Data("version \(version)".utf8), forKey: "doc")
        }
        #expect(try await cache.data(forKey: "doc") == Data("version 5".utf8))

        files.open()
        await cache.flush()
        #expect(files.installs(at: cache.fileURL(forKey: "doc").path) == 1)
        #expect(files.totalInstalls == 2)
        #expect(try await DiskCache(directory: dir.url).data(forKey: "doc") == Data("version 5".utf8))
    }

    @Test func aStoreWaitsForRoomWhenTheQueueIsFull() async throws {
        let dir = try TemporaryDirectory()
        let (cache, files) = try gatedCache(at: dir, configuration: DiskCacheConfiguration(writeQueueByteLimit: 100))
        files.shut()
        try await cache.store(Data(repeating: 1, count: 60), forKey: "a")
        await files.waitForArrivals(1)
        try await cache.store(Data(repeating: 2, count: 30), forKey: "b")  // 90 of 100 bytes queued
        let returned = Atomic<Bool>(false)
        let third = Task {
            try await cache.store(Data(repeating: 3, count: 30), forKey: "c")
            returned.store(true, ordering: .sequentiallyConsistent)
        }
        #expect(await eventually { cache.writes.storesWaitingForRoom == 1 })
        let returnedEarly = returned.load(ordering: .sequentiallyConsistent)
        #expect(!returnedEarly)
        #expect(try await cache.data(forKey: "c") == nil)

        files.open()
        try await third.value
        let returnedAfter = returned.load(ordering: .sequentiallyConsistent)
        #expect(returnedAfter)
        await cache.flush()
        #expect(files.totalInstalls == 3)
        #expect(try await cache.data(forKey: "c") == Data(repeating: 3, count: 30))
    }

    @Test func flushWaitsForEveryQueuedWrite() async throws {
        let dir = try TemporaryDirectory()
        let (cache, files) = try gatedCache(at: dir)
        files.shut()
        for index in 0..<3 { try await cache.store(Data("entry \(index)".utf8), forKey: "k\(index)") }
        let flushed = Atomic<Bool>(false)
        let flush = Task {
            await cache.flush()
            flushed.store(true, ordering: .sequentiallyConsistent)
        }
        await files.waitForArrivals(1)
        let flushedEarly = flushed.load(ordering: .sequentiallyConsistent)
        #expect(!flushedEarly)
        #expect(files.totalInstalls == 0)

        files.open()
        await flush.value
        #expect(files.totalInstalls == 3)
        for index in 0..<3 { #expect(fileExists(cache.fileURL(forKey: "k\(index)"))) }
        #expect(await cache.stats().entries == 3)
    }

    @Test func removingAQueuedKeyCancelsItsWrite() async throws {
        let dir = try TemporaryDirectory()
        let (cache, files) = try gatedCache(at: dir)
        files.shut()
        try await cache.store(Data("held".utf8), forKey: "first")
        await files.waitForArrivals(1)
        try await cache.store(Data("soon gone".utf8), forKey: "doc")

        #expect(try await cache.removeEntry(forKey: "doc"))
        #expect(try await cache.data(forKey: "doc") == nil)
        files.open()
        await cache.flush()
        #expect(files.installs(at: cache.fileURL(forKey: "doc").path) == 0)
        #expect(try await cache.data(forKey: "doc") == nil)
        #expect(try await cache.removeEntry(forKey: "doc") == false)
    }

    @Test func removingAKeyWhoseWriteIsInFlightWaitsForItThenRemovesIt() async throws {
        let dir = try TemporaryDirectory()
        let (cache, files) = try gatedCache(at: dir)
        files.shut()
        try await cache.store(Data("in flight".utf8), forKey: "doc")
        await files.waitForArrivals(1)
        let removal = Task { try await cache.removeEntry(forKey: "doc") }
        files.open()
        #expect(try await removal.value)
        await cache.flush()
        #expect(files.installs(at: cache.fileURL(forKey: "doc").path) == 1)
        #expect(!fileExists(cache.fileURL(forKey: "doc")))
        #expect(try await cache.data(forKey: "doc") == nil)
    }

    @Test func removeAllCancelsQueuedWritesAndCountsThem() async throws {
        let dir = try TemporaryDirectory()
        let (cache, files) = try gatedCache(at: dir)
        files.shut()
        for key in ["a", "b", "c"] { try await cache.store(Data(key.utf8), forKey: key) }
        await files.waitForArrivals(1)
        let removal = Task { try await cache.removeAll() }
        #expect(await eventually { cache.writes.queued("b") == nil && cache.writes.queued("c") == nil })
        files.open()
        // The write in flight lands and is removed as a file; the queued ones never become files.
        #expect(try await removal.value == 3)
        await cache.flush()
        #expect(files.totalInstalls == 1)
        #expect(filesUnder(dir.url.appendingPathComponent("entries")).isEmpty)
        for key in ["a", "b", "c"] { #expect(try await cache.data(forKey: key) == nil) }
    }

    @Test func updatingTheMetadataOfAQueuedStoreChangesWhatIsWritten() async throws {
        let dir = try TemporaryDirectory()
        let (cache, files) = try gatedCache(at: dir)
        files.shut()
        try await cache.store(Data("held".utf8), forKey: "first")
        await files.waitForArrivals(1)
        try await cache.store(Data("body".utf8), forKey: "doc", metadata: DiskEntryMetadata(contentType: "text/old"))
        let refreshed = DiskEntryMetadata(
            validators: Validators(etag: "\"v2\""), contentType: "text/new", expires: Date().addingTimeInterval(60))
        #expect(try await cache.updateMetadata(forKey: "doc", refreshed))

        files.open()
        await cache.flush()
        #expect(files.installs(at: cache.fileURL(forKey: "doc").path) == 1)
        let entry = try #require(try await DiskCache(directory: dir.url).entry(forKey: "doc"))
        #expect(entry.metadata == refreshed)
        #expect(entry.data == Data("body".utf8))
    }

    @Test func aFailedWriteIsCountedNotThrownAndKeepsThePreviousEntry() async throws {
        let dir = try TemporaryDirectory()
        let files = FaultyFileSystem()
        let cache = try makeCache(at: dir, files: files)
        try await cache.storeNow(Data("previous".utf8), forKey: "doc")
        files.inject(.write, errno: ENOSPC, whenPathContains: dir.url.standardizedFileURL.path + "/tmp/")

        try await cache.store(Data("replacement".utf8), forKey: "doc")
        await cache.flush()
        #expect(files.failures == 1)
        #expect(await cache.stats().failedWrites == 1)
        #expect(try await cache.data(forKey: "doc") == Data("previous".utf8))
    }

    /// A key holds its source URL, whose query may sign it: the failure's log line shows the URL without it.
    @Test func aFailedWritesLogLineShowsTheKeysURLWithoutItsQuery() async throws {
        let dir = try TemporaryDirectory()
        let files = FaultyFileSystem()
        let recorder = LogRecorder()
        let cache = try DiskCache(
            directory: dir.url, configuration: .init(), hasher: SHA256Hasher(), compressor: NoCompressor(),
            knownCompressors: [], evictionPolicy: LRUPolicyFactory(), fileSystem: files,
            logger: recorder.logger())
        files.inject(.write, errno: ENOSPC, whenPathContains: dir.url.standardizedFileURL.path + "/tmp/")
        try await cache.store(Data("body".utf8), forKey: "https://images.example/a.jpg?token=s3cr3t|w=300")
        await cache.flush()
        #expect(await cache.stats().failedWrites == 1)
        let lines = recorder.recorded.filter { $0.contains("disk cache write failed") }
        #expect(lines.count == 1 && lines.allSatisfy { $0.contains("https://images.example/a.jpg") }, "\(lines)")
        #expect(!lines.contains { $0.contains("s3cr3t") || $0.contains("token=") }, "\(lines)")
    }

    @Test func anEntryNoWriteCouldStoreIsRefusedBeforeItIsQueued() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url)
        let key = String(repeating: "k", count: EntryHeader.maxFieldBytes + 1)
        let error = await #expect(throws: TroveError.self) { try await cache.store(Data("x".utf8), forKey: key) }
        #expect(
            error?.description.contains(
                "the key is \(EntryHeader.maxFieldBytes + 1) bytes; an entry header holds at most \(EntryHeader.maxFieldBytes)"
            ) == true)
        await cache.flush()
        #expect(try await cache.data(forKey: key) == nil)
    }

    @Test func storeNowWritesBeforeReturningAndWinsOverAQueuedStore() async throws {
        let dir = try TemporaryDirectory()
        let (cache, files) = try gatedCache(at: dir)
        files.shut()
        try await cache.store(Data("held".utf8), forKey: "first")
        await files.waitForArrivals(1)
        try await cache.store(Data("queued".utf8), forKey: "doc")
        let now = Task { try await cache.storeNow(Data("now".utf8), forKey: "doc") }
        // Open the gate only once `storeNow` has taken the queued store back, or the writer could write it first.
        #expect(await eventually { cache.writes.queued("doc") == nil })
        files.open()
        try await now.value
        #expect(fileExists(cache.fileURL(forKey: "doc")))
        await cache.flush()
        #expect(files.installs(at: cache.fileURL(forKey: "doc").path) == 1)
        #expect(try await DiskCache(directory: dir.url).data(forKey: "doc") == Data("now".utf8))
    }

    static func version(_ version: Int, ofKey key: Int) -> Data {
        Data(repeating: UInt8(key * 16 + version), count: 500 + version * 37)
    }

    /// Four writers each store ten versions of their key through a queue too small for them all, while
    /// readers read: every read is one whole version, and each key's last version is what lands.
    @Test func concurrentStoresAndReadsSeeWholeVersionsAndTheLastOneLands() async throws {
        let dir = try TemporaryDirectory()
        let cache = try DiskCache(directory: dir.url, configuration: DiskCacheConfiguration(writeQueueByteLimit: 2048))
        let keys = 0..<4, versions = 0..<10
        let foreign = try await withThrowingTaskGroup(of: Int.self) { group in
            for key in keys {
                group.addTask {
                    for version in versions {
                        try await cache.store(Self.version(version, ofKey: key), forKey: "k\(key)")
                    }
                    return 0
                }
                group.addTask {
                    var foreign = 0
                    for _ in 0..<50 {
                        guard let data = try await cache.data(forKey: "k\(key)") else { continue }
                        if !versions.contains(where: { Self.version($0, ofKey: key) == data }) { foreign += 1 }
                    }
                    return foreign
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(foreign == 0)
        await cache.flush()
        let reopened = try DiskCache(directory: dir.url)
        for key in keys { #expect(try await reopened.data(forKey: "k\(key)") == Self.version(9, ofKey: key)) }
        #expect(filesUnder(dir.url.appendingPathComponent("tmp")).isEmpty)
        #expect(await cache.stats().failedWrites == 0)
    }

    @Test func aQueueBoundThatIsNotPositiveIsRefused() throws {
        let dir = try TemporaryDirectory()
        #expect(
            throws: TroveError.invalidConfiguration("disk cache writeQueueByteLimit must be positive, got 0")
        ) {
            try DiskCache(directory: dir.url, configuration: DiskCacheConfiguration(writeQueueByteLimit: 0))
        }
    }
}
