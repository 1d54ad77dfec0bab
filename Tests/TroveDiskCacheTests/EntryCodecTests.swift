import Foundation
import Testing
import TroveCore
import TroveDiskCache

/// `EntryCodec`: one entry in the disk format as bytes, checked on the way back in.
struct EntryCodecTests {
    static let metadata = DiskEntryMetadata(
        validators: Validators(etag: "\"abc\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT"),
        contentType: "image/png", created: Date(timeIntervalSinceReferenceDate: 12345.678),
        expires: Date(timeIntervalSinceReferenceDate: 99999.5))

    @Test(arguments: [Data(), Data((0...255).map { UInt8($0) }), Data(repeating: 0xFF, count: 70_000)])
    func roundTripsPayloadAndEveryField(payload: Data) throws {
        let key = "https://example.com/a b/ünïcode?x=1"
        let value = try EntryCodec.encode(payload, forKey: key, metadata: Self.metadata)
        let entry = try EntryCodec.decode(value, expectedKey: key)
        #expect(entry.key == key)
        #expect(entry.data == payload)
        #expect(entry.metadata == Self.metadata)
        #expect(!entry.compressed)
    }

    @Test func aValueInsideALargerBufferDecodes() throws {
        let value = try EntryCodec.encode(Data("payload".utf8), forKey: "k", metadata: DiskEntryMetadata())
        let sliced = (Data("prefix".utf8) + value).dropFirst(6)
        #expect(try EntryCodec.decode(sliced, expectedKey: "k").data == Data("payload".utf8))
    }

    @Test func aLargePayloadSharesTheValuesBytesYetOutlivesChangesToIt() throws {
        let original = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var value = try EntryCodec.encode(original, forKey: "k", metadata: DiskEntryMetadata())
        let entry = try EntryCodec.decode(value, expectedKey: "k")
        value.resetBytes(in: 0..<value.count)
        value = Data()
        #expect(entry.data == original)
        #expect(entry.data.startIndex == 0)
        #expect(entry.data[0] == original[0])
    }

    @Test func everyFlippedByteIsCaught() throws {
        let value = try EntryCodec.encode(Data("some image bytes".utf8), forKey: "key", metadata: Self.metadata)
        for index in value.indices {
            var damaged = value
            damaged[index] ^= 0x5A
            #expect(throws: EntryRejected.self, "byte \(index)") { try EntryCodec.decode(damaged, expectedKey: "key") }
        }
    }

    @Test func truncatedExtendedAndForeignValuesAreRejected() throws {
        let value = try EntryCodec.encode(Data("bytes".utf8), forKey: "key", metadata: Self.metadata)
        for bad in [Data(), Data("OK".utf8), Data("garbage written by redis-cli".utf8), value.dropLast(), value + [0]] {
            #expect(throws: EntryRejected.self) { try EntryCodec.decode(bad, expectedKey: "key") }
        }
    }

    @Test func aValueForAnotherKeyIsRejectedNamingIt() throws {
        let value = try EntryCodec.encode(Data("bytes".utf8), forKey: "other", metadata: Self.metadata)
        let error = #expect(throws: EntryRejected.self) { try EntryCodec.decode(value, expectedKey: "key") }
        #expect(error?.reason.contains("another key") == true)
    }

    @Test func aDiskFileIsTheSameBytes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("codec-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try DiskCache(directory: directory)
        // Fresh dates: the cache's opening scan, which may run after the store, deletes expired entries.
        let now = Date(timeIntervalSinceReferenceDate: Date().timeIntervalSinceReferenceDate.rounded())
        let metadata = DiskEntryMetadata(
            validators: Self.metadata.validators, contentType: "image/png", created: now,
            expires: now.addingTimeInterval(3600))
        try await cache.store(Data("file bytes".utf8), forKey: "file-key", metadata: metadata)
        await cache.flush()
        let files = try FileManager.default.subpathsOfDirectory(atPath: directory.path)
            .map { directory.appendingPathComponent($0) }
            .filter { (try? Data(contentsOf: $0))?.prefix(4) == Data("TROV".utf8) }
        let file = try #require(files.first)
        let entry = try EntryCodec.decode(try Data(contentsOf: file), expectedKey: "file-key")
        #expect(entry.data == Data("file bytes".utf8))
        #expect(entry.metadata == metadata)
    }
}
