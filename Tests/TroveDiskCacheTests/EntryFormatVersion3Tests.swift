import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveDiskCache

/// Format version 3 keeps the response's status and header fields (so a 304 can update them and freshness
/// be worked out again) and the request fields that selected it (`Vary`), and marks variant indexes;
/// version 2 entries still read, as status 200 with no fields.
@Suite struct EntryFormatVersion3Tests {
    static var metadata: DiskEntryMetadata {
        var metadata = EntryFormatVersionTests.metadata
        metadata.status = 203
        metadata.headerFields = [
            HeaderField(name: "Cache-Control", value: "max-age=3600"), HeaderField(name: "X-Two", value: "a"),
            HeaderField(name: "x-two", value: "b, c"), HeaderField(name: "Empty", value: "")
        ]
        metadata.selecting = [
            SelectingField(name: "accept", value: "image/webp"), SelectingField(name: "foo", value: nil)
        ]
        return metadata
    }

    @Test func statusFieldsAndSelectingFieldsRoundTrip() throws {
        let value = try EntryCodec.encode(EntryFormatVersionTests.payload, forKey: "k", metadata: Self.metadata)
        #expect(value[4] == 3 && value[6] == 0b001)
        let entry = try EntryCodec.decode(value, expectedKey: "k")
        #expect(entry.metadata == Self.metadata)
        #expect(entry.data == EntryFormatVersionTests.payload)
    }

    @Test func aVariantIndexRoundTripsWithItsNamesAndNoPayload() throws {
        var index = DiskEntryMetadata(created: EntryFormatVersionTests.created)
        index.variantNames = ["accept", "foo"]
        let value = try EntryCodec.encode(Data(), forKey: "k", metadata: index)
        #expect(value[6] == 0b100)
        let entry = try EntryCodec.decode(value, expectedKey: "k")
        #expect(entry.metadata.variantNames == ["accept", "foo"] && entry.metadata.selecting.isEmpty)
        #expect(entry.data.isEmpty)
    }

    @Test func aVersion2ValueReadsAsStatus200WithNoFields() throws {
        let value = EntryFormatVersionTests.version1Entry(
            key: "k", payload: EntryFormatVersionTests.payload, metadata: EntryFormatVersionTests.metadata,
            extraFlags: 0b10, version: 2)
        let entry = try EntryCodec.decode(value, expectedKey: "k")
        #expect(entry.metadata.status == 200 && entry.metadata.headerFields.isEmpty)
        #expect(entry.metadata.mustRevalidate && entry.metadata.variantNames == nil)
        // Version 2 had no index flag: a file with bit 2 is damaged.
        let flagged = EntryFormatVersionTests.version1Entry(
            key: "k", payload: EntryFormatVersionTests.payload, metadata: EntryFormatVersionTests.metadata,
            extraFlags: 0b100, version: 2)
        let error = #expect(throws: EntryRejected.self) { try EntryCodec.decode(flagged, expectedKey: "k") }
        #expect(error?.reason == "unknown flags 5 for format version 2")
    }

    @Test func onDiskA304sUpdateReplacesTheFieldsAndKeepsThePayload() async throws {
        let dir = try temporaryDirectory()
        defer { removeTemporaryDirectory(dir) }
        let cache = try DiskCache(directory: dir)
        try await cache.storeNow(EntryFormatVersionTests.payload, forKey: "k", metadata: Self.metadata)
        var updated = Self.metadata
        updated.headerFields = [HeaderField(name: "Cache-Control", value: "max-age=60")]
        #expect(try await cache.updateMetadata(forKey: "k", updated))
        let entry = try #require(try await DiskCache(directory: dir).entry(forKey: "k"))
        #expect(entry.metadata == updated && entry.data == EntryFormatVersionTests.payload)
    }

    @Test func aFieldTooLongForTheFormatIsRefusedNamingIt() async throws {
        var metadata = Self.metadata
        metadata.headerFields = [HeaderField(name: "X-Big", value: String(repeating: "a", count: 70_000))]
        let error = #expect(throws: TroveError.self) {
            try EntryCodec.encode(Data(), forKey: "k", metadata: metadata)
        }
        #expect(
            error == .invalidConfiguration("the X-Big header field is 70000 bytes; an entry header holds at most 65536")
        )
    }
}
