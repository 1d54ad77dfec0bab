import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveDiskCache

/// `PayloadVerification.whenFileChanges`: a payload checked once is trusted while its file shows the same
/// version, and every change to the file through the file system brings the checksum back.
@Suite("Checking payloads once per file version")
struct PayloadVerificationTests {
    /// Longer than this suite's grace, so the stored file counts as settled when first read.
    static let settle: Duration = .milliseconds(150)
    static let grace: TimeInterval = 0.05

    static func trustingCache(at dir: TemporaryDirectory) throws -> DiskCache {
        try makeCache(
            at: dir, configuration: DiskCacheConfiguration(payloadVerification: .whenFileChanges),
            unchangedFileGrace: grace)
    }

    static func bytes(_ count: Int, seed: UInt8 = 0) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ Int(seed)) })
    }

    @Test func aSettledFileIsChecksummedOnceThenTrustedWhileUnchanged() async throws {
        let dir = try TemporaryDirectory()
        let cache = try Self.trustingCache(at: dir)
        let original = Self.bytes(10_000)
        try await cache.store(original, forKey: "photo")
        await cache.flush()
        try await Task.sleep(for: Self.settle)

        for _ in 0..<3 { #expect(try await cache.data(forKey: "photo") == original) }
        #expect(cache.payloadChecksums.load(ordering: .relaxed) == 1)
        #expect(await cache.stats().hits == 3)
    }

    @Test func aFileChangedWithinTheGraceIsChecksummedOnEveryRead() async throws {
        let dir = try TemporaryDirectory()
        let cache = try makeCache(
            at: dir, configuration: DiskCacheConfiguration(payloadVerification: .whenFileChanges),
            unchangedFileGrace: 3600)
        let original = Self.bytes(10_000)
        try await cache.store(original, forKey: "photo")
        await cache.flush()

        for _ in 0..<3 { #expect(try await cache.data(forKey: "photo") == original) }
        #expect(cache.payloadChecksums.load(ordering: .relaxed) == 3)
    }

    /// The owner's decision (issue 14): checking once per file version is the default; `everyRead` stays.
    @Test func whenFileChangesIsTheDefaultAndEveryReadChecksumsEveryRead() async throws {
        let dir = try TemporaryDirectory()
        #expect(DiskCacheConfiguration().payloadVerification == .whenFileChanges)
        let cache = try makeCache(
            at: dir, configuration: DiskCacheConfiguration(payloadVerification: .everyRead),
            unchangedFileGrace: Self.grace)
        let original = Self.bytes(10_000)
        try await cache.store(original, forKey: "photo")
        await cache.flush()
        try await Task.sleep(for: Self.settle)

        for _ in 0..<3 { #expect(try await cache.data(forKey: "photo") == original) }
        #expect(cache.payloadChecksums.load(ordering: .relaxed) == 3)
    }

    /// The damage tests of `CorruptionTests`, done after the file has been checked and trusted.
    @Test(arguments: Damage.allCases)
    func damageAfterATrustedReadIsStillCaught(damage: Damage) async throws {
        let dir = try TemporaryDirectory()
        let cache = try Self.trustingCache(at: dir)
        let original = Self.bytes(2000)
        try await cache.store(original, forKey: "key-1")
        await cache.flush()
        try await Task.sleep(for: Self.settle)
        #expect(try await cache.data(forKey: "key-1") == original)
        #expect(try await cache.data(forKey: "key-1") == original)
        #expect(cache.payloadChecksums.load(ordering: .relaxed) == 1)

        let file = cache.fileURL(forKey: "key-1")
        var bytes = [UInt8](try Data(contentsOf: file))
        damage.apply(to: &bytes)
        try overwriteInPlace(file, with: bytes)

        #expect(try await cache.entry(forKey: "key-1") == nil)
        #expect(!fileExists(file))
        let stats = await cache.stats()
        #expect(stats.corrupt == 1)
        #expect(stats.entries == 0)
    }

    @Test func aFileReplacedByAnotherWriterIsReadAndCheckedAfresh() async throws {
        let dir = try TemporaryDirectory()
        let reader = try Self.trustingCache(at: dir)
        let writer = try Self.trustingCache(at: dir)
        try await reader.store(Self.bytes(1000), forKey: "k")
        await reader.flush()
        try await Task.sleep(for: Self.settle)
        #expect(try await reader.data(forKey: "k") == Self.bytes(1000))
        #expect(reader.payloadChecksums.load(ordering: .relaxed) == 1)

        // Larger, smaller, and the same size with other bytes, each replacing a version the reader trusts:
        // the index's size is only a guess, and a new file is checked once, then trusted in its turn.
        for (round, (size, seed)) in ([(5000, 1), (10, 2), (10, 3)] as [(Int, UInt8)]).enumerated() {
            let replacement = Self.bytes(size, seed: seed)
            try await writer.store(replacement, forKey: "k")
            await writer.flush()
            try await Task.sleep(for: Self.settle)
            #expect(try await reader.data(forKey: "k") == replacement)
            #expect(try await reader.data(forKey: "k") == replacement)
            #expect(reader.payloadChecksums.load(ordering: .relaxed) == round + 2)
        }
    }

    @Test(arguments: PayloadVerification.allCases)
    func aDirectoryWhereAnIndexedEntryWasReadsAsAMiss(verification: PayloadVerification) async throws {
        let dir = try TemporaryDirectory()
        let cache = try makeCache(
            at: dir, configuration: DiskCacheConfiguration(payloadVerification: verification),
            unchangedFileGrace: Self.grace)
        try await cache.store(Self.bytes(1000), forKey: "k")
        await cache.flush()
        // The opening scan (in the background) done first, so that the read below is what finds the directory.
        await cache.waitForIndex()
        let file = cache.fileURL(forKey: "k")
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)

        #expect(try await cache.data(forKey: "k") == nil)
        #expect(await cache.stats().corrupt == 1)
    }
}

/// Rewrites a file's bytes through the same inode (open, truncate, write), as a stray program or a
/// damaged write would, rather than replacing it.
func overwriteInPlace(_ file: URL, with bytes: [UInt8]) throws {
    let handle = try FileHandle(forUpdating: file)
    defer { try? handle.close() }
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: bytes)
}
