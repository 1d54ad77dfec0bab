import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveDiskCache

/// Format version 4 is version 3 plus the placeholders computed from the payload. It is written only for an
/// entry that has some, so every other entry stays byte for byte a version 3 file that older readers take.
@Suite struct EntryFormatVersion4Tests {
    static var metadata: DiskEntryMetadata {
        var metadata = EntryFormatVersion3Tests.metadata
        metadata.placeholders = [
            "thumbhash": "1QcSHQRnh493V4dIh4eXh1h4kJUI", "blurhash:4x3": "LEHV6nWB2yk8pyo0adR*.7kCMdnj"
        ]
        return metadata
    }

    @Test func placeholdersRoundTripInVersion4() throws {
        let value = try EntryCodec.encode(EntryFormatVersionTests.payload, forKey: "k", metadata: Self.metadata)
        #expect(value[4] == 4)
        let entry = try EntryCodec.decode(value, expectedKey: "k")
        #expect(entry.metadata == Self.metadata)
        #expect(entry.data == EntryFormatVersionTests.payload)
    }

    @Test func withoutPlaceholdersTheBytesAreVersion3sAsBefore() throws {
        let value = try EntryCodec.encode(
            EntryFormatVersionTests.payload, forKey: "k", metadata: EntryFormatVersion3Tests.metadata)
        #expect(value[4] == 3)
        // The version 4 file is the version 3 one with the placeholder count and pairs before the header CRC.
        let withPlaceholders = try EntryCodec.encode(
            EntryFormatVersionTests.payload, forKey: "k", metadata: Self.metadata)
        let v3HeaderLength = Int(value[8]) | Int(value[9]) << 8
        let v4HeaderLength = Int(withPlaceholders[8]) | Int(withPlaceholders[9]) << 8
        let pairs = "blurhash:4x3LEHV6nWB2yk8pyo0adR*.7kCMdnjthumbhash1QcSHQRnh493V4dIh4eXh1h4kJUI".utf8.count
        #expect(v4HeaderLength - v3HeaderLength == 4 + 4 * 4 + pairs)
        #expect(value[5..<8] == withPlaceholders[5..<8])
        #expect(value[12..<(v3HeaderLength - 4)] == withPlaceholders[12..<(v3HeaderLength - 4)])
    }

    @Test func aVersion3ReaderWouldRefuseATrailingField() throws {
        // Why the addition is a version: the same bytes labelled version 3 are damaged, not misread.
        var value = try EntryCodec.encode(EntryFormatVersionTests.payload, forKey: "k", metadata: Self.metadata)
        value[4] = 3
        let length = Int(value[8]) | Int(value[9]) << 8
        let crc = value.withUnsafeBytes { CRC32ForTests.checksum(Array($0[0..<length - 4])) }
        for i in 0..<4 { value[length - 4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * i)) }
        let error = #expect(throws: EntryRejected.self) { try EntryCodec.decode(value, expectedKey: "k") }
        #expect(error?.reason == "unexpected bytes after the header fields")
    }

    @Test func metadataIsReadWithoutThePayload() async throws {
        let dir = try temporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let cache = try DiskCache(directory: dir)
        try await cache.storeNow(EntryFormatVersionTests.payload, forKey: "k", metadata: Self.metadata)
        // Both caches' open-time scans are over before the reads: on a loaded machine the first one's ran late
        // once and the reopened cache no longer found the file.
        await cache.waitForIndex()
        let file = cache.fileURL(forKey: "k")
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 1] ^= 0xFF  // a payload read would fail its CRC
        try bytes.write(to: file)
        let reopened = try DiskCache(directory: dir)
        await reopened.waitForIndex()
        #expect(try await reopened.metadata(forKey: "k") == Self.metadata)
        #expect(try await reopened.metadata(forKey: "other") == nil)
        #expect(await reopened.stats().corrupt == 0)
        // The payload read finds the damage, as always.
        #expect(try await reopened.entry(forKey: "k") == nil)
        #expect(await reopened.stats().corrupt == 1)
    }

    @Test func addingPlaceholdersRewritesTheHeaderAndKeepsThePayload() async throws {
        let dir = try temporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let cache = try DiskCache(directory: dir)
        try await cache.storeNow(
            EntryFormatVersionTests.payload, forKey: "k", metadata: EntryFormatVersion3Tests.metadata)
        #expect(try Data(contentsOf: cache.fileURL(forKey: "k"))[4] == 3)
        #expect(try await cache.updateMetadata(forKey: "k", Self.metadata))
        #expect(try Data(contentsOf: cache.fileURL(forKey: "k"))[4] == 4)
        let entry = try #require(try await DiskCache(directory: dir).entry(forKey: "k"))
        #expect(entry.metadata.placeholders == Self.metadata.placeholders)
        #expect(entry.data == EntryFormatVersionTests.payload)
    }
}

/// zlib's CRC-32, bit by bit: the header checksum a test recomputes after editing a header.
enum CRC32ForTests {
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
