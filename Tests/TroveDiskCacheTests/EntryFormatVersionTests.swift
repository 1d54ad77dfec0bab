import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveDiskCache

/// Format version 2 keeps must-revalidate in flag bit 1 (version 3, written now, keeps it too); version 1
/// entries, written before it, still read (as not must-revalidate), and nothing is read as a flag that its
/// version did not have.
@Suite struct EntryFormatVersionTests {
    static let created = Date(timeIntervalSinceReferenceDate: Date().timeIntervalSinceReferenceDate.rounded())
    static let metadata = DiskEntryMetadata(
        validators: Validators(etag: "\"v1\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT"),
        contentType: "image/png", created: created, expires: created.addingTimeInterval(3600))
    static let payload = Data("an old entry's payload".utf8)

    @Test(arguments: [false, true])
    func theFlagRoundTripsInTheCurrentVersion(mustRevalidate: Bool) throws {
        var metadata = Self.metadata
        metadata.mustRevalidate = mustRevalidate
        let value = try EntryCodec.encode(Self.payload, forKey: "k", metadata: metadata)
        #expect(value[4] == 3)
        #expect(value[6] == (mustRevalidate ? 0b11 : 0b01))
        let entry = try EntryCodec.decode(value, expectedKey: "k")
        #expect(entry.metadata == metadata)
        #expect(entry.data == Self.payload)
    }

    @Test func aVersion1ValueDecodesWithEveryField() throws {
        let value = Self.version1Entry(key: "k", payload: Self.payload, metadata: Self.metadata)
        let entry = try EntryCodec.decode(value, expectedKey: "k")
        #expect(entry.data == Self.payload)
        #expect(entry.metadata == Self.metadata)
        #expect(!entry.metadata.mustRevalidate)
    }

    @Test func aVersion1FileOnDiskReadsAndIsRewrittenAsTheCurrentVersion() async throws {
        let dir = try temporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let key = "https://example.com/old.png"
        let path = try await Self.fileOfAnEntry(key: key, in: dir)
        try Self.version1Entry(key: key, payload: Self.payload, metadata: Self.metadata).write(
            to: path, options: .atomic)

        // A new cache on the directory: its manifest says version 3, the file is version 1.
        let cache = try DiskCache(directory: dir)
        let entry = try #require(try await cache.entry(forKey: key))
        #expect(entry.data == Self.payload)
        #expect(entry.metadata == Self.metadata)
        #expect(await cache.stats().corrupt == 0)
        #expect(await cache.stats().entries == 1)

        var revalidated = Self.metadata
        revalidated.mustRevalidate = true
        #expect(try await cache.updateMetadata(forKey: key, revalidated))
        #expect(try Data(contentsOf: path)[4] == 3)
        #expect(try await DiskCache(directory: dir).entry(forKey: key)?.metadata == revalidated)
    }

    @Test func flagsAndVersionsNoVersionHadAreRejected() async throws {
        let good = Self.version1Entry(key: "k", payload: Self.payload, metadata: Self.metadata)
        // Version 1 never had bit 1: a file with it is damaged, not a must-revalidate entry.
        let flagged = Self.version1Entry(key: "k", payload: Self.payload, metadata: Self.metadata, extraFlags: 0b10)
        let error = #expect(throws: EntryRejected.self) { try EntryCodec.decode(flagged, expectedKey: "k") }
        #expect(error?.reason == "unknown flags 3 for format version 1")
        for version: UInt8 in [0, EntryHeader.version + 1] {
            let other = Self.version1Entry(
                key: "k", payload: Self.payload, metadata: Self.metadata, version: version)
            let rejection = #expect(throws: EntryRejected.self) { try EntryCodec.decode(other, expectedKey: "k") }
            #expect(rejection?.reason == "unknown format version \(version)")
        }
        // On disk such a file is deleted and counted, never served.
        let dir = try temporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let path = try await Self.fileOfAnEntry(key: "k", in: dir)
        try flagged.write(to: path, options: .atomic)
        let cache = try DiskCache(directory: dir)
        // After the opening scan, so the scan and the read do not both find it (each find is counted).
        await cache.waitForIndex()
        #expect(try await cache.entry(forKey: "k") == nil)
        #expect(await cache.stats().corrupt == 1)
        #expect(!FileManager.default.fileExists(atPath: path.path))
        #expect(try EntryCodec.decode(good, expectedKey: "k").data == Self.payload)
    }

    /// Where a cache on `directory` keeps `key`'s file: a store puts one there, which the tests overwrite.
    static func fileOfAnEntry(key: String, in directory: URL) async throws -> URL {
        let cache = try DiskCache(directory: directory)
        try await cache.storeNow(Data("placeholder".utf8), forKey: key)
        await cache.waitForIndex()  // its opening scan is over before the test replaces the file
        let files = filesUnder(directory.appendingPathComponent("entries"))
        #expect(files.count == 1)
        return try #require(files.first)
    }

    /// An entry as format version 1 laid it out, byte by byte, without the code under test: magic, version,
    /// compressor 0, flags, reserved, header length, lengths, payload CRC, dates, four strings, header CRC.
    static func version1Entry(
        key: String, payload: Data, metadata: DiskEntryMetadata, extraFlags: UInt8 = 0, version: UInt8 = 1
    ) -> Data {
        var header: [UInt8] = Array("TROV".utf8) + [version, 0, (metadata.expires == nil ? 0 : 1) | extraFlags, 0]
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { header += $0 } }
        put(UInt32(0))
        put(UInt64(payload.count))
        put(UInt64(payload.count))
        put(crc32(Array(payload)))
        put(metadata.created.timeIntervalSinceReferenceDate.bitPattern)
        put(metadata.expires?.timeIntervalSinceReferenceDate.bitPattern ?? 0)
        for field in [key, metadata.validators.etag, metadata.validators.lastModified, metadata.contentType] {
            if let field {
                put(UInt32(field.utf8.count))
                header += Array(field.utf8)
            } else {
                put(UInt32.max)
            }
        }
        let length = UInt32(header.count + 4)
        withUnsafeBytes(of: length.littleEndian) { header.replaceSubrange(8..<12, with: $0) }
        put(crc32(header))
        return Data(header) + payload
    }

    /// zlib's CRC-32, bit by bit: slow and plainly right.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        return ~crc
    }
}
