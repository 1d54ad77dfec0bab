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

/// A write that fails at one point, and the error it must surface as.
enum WriteFault: String, CaseIterable, Sendable {
    case diskFillsMidWrite, createNoSpace, writeNoSpace, writeIOError, fsyncIOError, closeIOError, renameIOError,
        renameNoSpace

    /// `temporary`: the cache's tmp/ directory, where writes happen before the rename.
    func inject(into files: FaultyFileSystem, temporary: String) {
        switch self {
        case .diskFillsMidWrite: files.runOutOfSpace(after: 700)
        case .createNoSpace: files.inject(.open, errno: ENOSPC, whenPathContains: temporary)
        // Header and payload go out in one gathering write; a disk that fills part-way is `diskFillsMidWrite`.
        case .writeNoSpace: files.inject(.write, errno: ENOSPC, whenPathContains: temporary)
        case .writeIOError: files.inject(.write, errno: EIO, whenPathContains: temporary)
        case .fsyncIOError: files.inject(.fsync, errno: EIO, whenPathContains: temporary)
        case .closeIOError: files.inject(.close, errno: EIO, whenPathContains: temporary)
        case .renameIOError: files.inject(.rename, errno: EIO, whenPathContains: temporary)
        case .renameNoSpace: files.inject(.rename, errno: ENOSPC, whenPathContains: temporary)
        }
    }

    var isDiskFull: Bool { [.diskFillsMidWrite, .createNoSpace, .writeNoSpace, .renameNoSpace].contains(self) }

    /// The system call the `ioFailed` reason names.
    var operation: String {
        switch self {
        case .createNoSpace: "create"
        case .diskFillsMidWrite, .writeNoSpace, .writeIOError: "write"
        case .fsyncIOError: "fsync"
        case .closeIOError: "close"
        case .renameIOError, .renameNoSpace: "rename"
        }
    }
}

func makeCache(
    at dir: TemporaryDirectory, files: any FileSystemCalls = PosixFileSystem(),
    configuration: DiskCacheConfiguration = .init(), unchangedFileGrace: TimeInterval = 2
) throws -> DiskCache {
    try DiskCache(
        directory: dir.url, configuration: configuration, hasher: SHA256Hasher(), compressor: NoCompressor(),
        knownCompressors: [], evictionPolicy: LRUPolicyFactory(), fileSystem: files,
        unchangedFileGrace: unchangedFileGrace)
}

func temporaryLeftovers(in dir: TemporaryDirectory) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: dir.path + "/tmp")
}

/// A cache on an injectable file system, fsync on, holding `previous` under "photo", with `fault` injected
/// into writes under its `tmp/`: the start of every "a failed write keeps the previous entry" test.
func faultyCacheHoldingAnEntry(
    _ previous: Data, fault: WriteFault
) async throws -> (dir: TemporaryDirectory, files: FaultyFileSystem, cache: DiskCache) {
    let dir = try TemporaryDirectory()
    let files = FaultyFileSystem()
    let cache = try makeCache(at: dir, files: files, configuration: DiskCacheConfiguration(fsync: true))
    try await cache.storeNow(previous, forKey: "photo")
    await cache.waitForIndex()
    fault.inject(into: files, temporary: dir.url.standardizedFileURL.path + "/tmp/")
    return (dir, files, cache)
}

/// These exercise the write itself, so they store with `storeNow`, which throws what failed; a failed
/// write-behind store is in `WriteBehindTests`.
@Suite("Injected file-system faults")
struct FaultInjectionTests {
    @Test(arguments: WriteFault.allCases)
    func aFailedWriteReportsClearlyAndKeepsThePreviousEntry(fault: WriteFault) async throws {
        let previous = Data(repeating: 0x11, count: 3000)
        let replacement = Data(repeating: 0x22, count: 5000)
        let (dir, files, cache) = try await faultyCacheHoldingAnEntry(previous, fault: fault)
        let error = await #expect(throws: TroveError.self) {
            try await cache.storeNow(replacement, forKey: "photo")
        }
        #expect(files.failures >= 1)
        let entryPath = cache.fileURL(forKey: "photo").path
        switch error {
        case let .diskFull(path)?:
            #expect(fault.isDiskFull)
            #expect(path.hasPrefix(dir.url.standardizedFileURL.path + "/"))
            #expect(error?.description.contains("no space left on the device writing \(path)") == true)
        case let .ioFailed(path, reason)?:
            #expect(!fault.isDiskFull)
            #expect(path.hasPrefix(dir.url.standardizedFileURL.path + "/"))
            #expect(reason == "\(fault.operation): Input/output error")
        default:
            Issue.record("expected diskFull or ioFailed, got \(String(describing: error))")
        }

        // The previous entry is still served, even while the fault lasts; nothing half-written is left.
        #expect(try await cache.data(forKey: "photo") == previous)
        #expect(try temporaryLeftovers(in: dir) == [])
        #expect(filesUnder(dir.url.appendingPathComponent("entries")).map(\.path) == [entryPath])
        let reopened = try DiskCache(directory: dir.url)
        #expect(try await reopened.verify() == DiskCacheVerification(checked: 1, corrupt: 0, removed: 0))
        #expect(try await reopened.data(forKey: "photo") == previous)
        #expect(await cache.stats().entries == 1)

        // Once the disk recovers, the same store succeeds.
        files.heal()
        try await cache.storeNow(replacement, forKey: "photo")
        #expect(try await cache.data(forKey: "photo") == replacement)
    }

    /// Header and payload leave in one gathering write; when each call takes only part of them, the rest
    /// follows from where it stopped, across the header/payload boundary too.
    @Test(arguments: [1, 7, 100, 4_096])
    func shortWritesStillStoreEveryByte(bytesPerCall: Int) async throws {
        let dir = try TemporaryDirectory()
        let files = FaultyFileSystem()
        let cache = try makeCache(at: dir, files: files)
        files.shortenWrites(to: bytesPerCall)
        let bytes = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ bytesPerCall) })
        try await cache.storeNow(bytes, forKey: "short", metadata: DiskEntryMetadata(contentType: "application/x-test"))
        let entry = try #require(try await cache.entry(forKey: "short"))
        #expect(entry.data == bytes)
        #expect(entry.metadata.contentType == "application/x-test")
        #expect(await cache.stats().corrupt == 0)
    }

    @Test func aReadErrorIsReportedNotMistakenForDamage() async throws {
        let dir = try TemporaryDirectory()
        let files = FaultyFileSystem()
        let cache = try makeCache(at: dir, files: files)
        let bytes = Data("kept".utf8)
        try await cache.storeNow(bytes, forKey: "doc")
        let entryPath = cache.fileURL(forKey: "doc").path

        files.inject(.read, errno: EIO, whenPathContains: "/entries/")
        let error = await #expect(throws: TroveError.self) { try await cache.data(forKey: "doc") }
        #expect(error == .ioFailed(path: entryPath, reason: "read: Input/output error"))
        #expect(FileManager.default.fileExists(atPath: entryPath))
        #expect(await cache.stats().corrupt == 0)

        files.heal()
        #expect(try await cache.data(forKey: "doc") == bytes)
    }

    @Test func aFailedDeleteIsReportedAndTheEntryStaysWhole() async throws {
        let dir = try TemporaryDirectory()
        let files = FaultyFileSystem()
        let cache = try makeCache(at: dir, files: files)
        let bytes = Data(repeating: 7, count: 900)
        try await cache.storeNow(bytes, forKey: "doc")
        let entryPath = cache.fileURL(forKey: "doc").path

        files.inject(.unlink, errno: EIO, whenPathContains: "/entries/", times: 1)
        let error = await #expect(throws: TroveError.self) { try await cache.removeEntry(forKey: "doc") }
        #expect(error == .ioFailed(path: entryPath, reason: "delete: Input/output error"))
        #expect(try await cache.data(forKey: "doc") == bytes)

        #expect(try await cache.removeEntry(forKey: "doc"))
        #expect(try await cache.data(forKey: "doc") == nil)
    }

    @Test func aDiskThatFillsUpKeepsWhatFitAndLosesNothingElse() async throws {
        let dir = try TemporaryDirectory()
        let files = FaultyFileSystem()
        let cache = try makeCache(at: dir, files: files)
        files.runOutOfSpace(after: 50_000)
        var stored: [String: Data] = [:]
        var refused = 0
        for index in 0..<20 {
            let key = "item-\(index)"
            let bytes = Data(repeating: UInt8(index), count: 4000)
            do {
                try await cache.storeNow(bytes, forKey: key)
                stored[key] = bytes
            } catch let error as TroveError {
                guard case .diskFull = error else {
                    Issue.record("expected diskFull, got \(error)")
                    continue
                }
                refused += 1
            }
        }
        // Each entry file is 4000 bytes plus a small header: 12 fit in 50,000 bytes.
        #expect(stored.count == 12)
        #expect(refused == 8)
        for index in 0..<20 {
            let key = "item-\(index)"
            #expect(try await cache.data(forKey: key) == stored[key])
        }
        #expect(try temporaryLeftovers(in: dir) == [])
        #expect(await cache.stats().entries == 12)
    }
}
