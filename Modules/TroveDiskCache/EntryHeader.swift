import Foundation
import TroveCore
import TroveSupport

// The entry file format, version 4. One file per entry; integers are little-endian.
//
//   offset  size  field
//   0       4     magic "TROV"
//   4       1     format version (3, or 4 when placeholders are kept; versions 1 and 2 are still read)
//   5       1     compressor id (0 = payload stored as is)
//   6       1     flags: bit 0 set when an expiry date is present; bit 1 when the response said
//                 must-revalidate (versions 2 and 3); bit 2 when the entry is a variant index (version 3
//                 only: no payload, the selecting names below say which request fields pick a variant);
//                 other bits must be 0
//   7       1     reserved, 0
//   8       4     header length H: every byte before the payload, this table and the header CRC included
//   12      8     stored payload length S (as written: compressed or not)
//   20      8     original payload length
//   28      4     CRC-32 (zlib) of the original payload
//   32      8     created: seconds since 2001-01-01 as IEEE-754 double bits (a Date round-trips exactly)
//   40      8     expires: same encoding, 0 when flag bit 0 is clear
//   48      ...   four strings, each a UInt32 length then that many UTF-8 bytes; 0xFFFFFFFF means absent:
//                 the full key (never absent), ETag, Last-Modified, content type
//   versions 3 and 4, after the strings:
//           2     the response's status code
//           4     N, the number of response header fields; then N pairs of strings, name and value
//           4     M, the number of selecting fields (Vary); then M pairs of strings, the lower-case name and
//                 the request's normalised value (absent: the request had none; always absent in an index)
//   version 4 only, after those:
//           4     P, the number of placeholders; then P pairs of strings, the kind ("thumbhash",
//                 "blurhash:4x3") and the placeholder computed from the payload, sorted by kind
//   H-4     4     CRC-32 of bytes 0..<H-4, so a damaged key, validator or date is caught, not served
//   H       S     payload
//
// A valid file is exactly H + S bytes long.
//
// Version 4 is written only for an entry that carries placeholders; any other entry is still written as
// version 3, byte for byte as before. A reader of version 3 alone refuses a trailing field (it must end at
// the header CRC), so the addition needs its own version: an older process sharing the directory then reads
// only the entries it can, and drops the others as it would any file it cannot read.
//
// Version 2 is version 3 without flag bit 2 and without the fields after the strings: its entries read as
// status 200 with no stored header fields and no selecting fields.
// Version 1 is the same layout as version 2 without flag bit 1: its entries read as not must-revalidate (it never kept
// the directive), and a version 1 file with bit 1 set is damaged, not a must-revalidate entry.

/// Why an entry file was rejected. Never shown to callers: such a file is deleted and counted as corrupt.
struct EntryCorruption: Error, Equatable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// The decoded header of an entry file.
struct EntryHeader: Equatable {
    static let magic: [UInt8] = Array("TROV".utf8)
    /// The version written for an entry without placeholders.
    static let baseVersion: UInt8 = 3
    /// The newest version written: an entry with placeholders.
    static let version: UInt8 = 4
    /// The versions read: older entries stay valid after an upgrade rather than being fetched again.
    static let readableVersions: ClosedRange<UInt8> = 1...version
    static let fixedLength = 48
    /// Bytes a reader needs before it knows the header length.
    static let lengthPrefix = 12
    static let maxFieldBytes = 64 << 10
    static let minHeaderLength = fixedLength + 4 * 4 + 4
    /// The most header fields or selecting fields one entry keeps.
    static let maxFieldCount = 1024
    static let maxHeaderLength = 1 << 20
    /// Largest original payload a reader accepts (and so a writer produces), checked before allocating.
    static let maxPayloadBytes = 1 << 30
    private static let absent: UInt32 = 0xFFFF_FFFF
    private static let hasExpiryFlag: UInt8 = 1
    private static let mustRevalidateFlag: UInt8 = 2
    private static let variantIndexFlag: UInt8 = 4

    /// The flag bits a file of `version` may set.
    private static func knownFlags(in version: UInt8) -> UInt8 {
        switch version {
        case 1: hasExpiryFlag
        case 2: hasExpiryFlag | mustRevalidateFlag
        default: hasExpiryFlag | mustRevalidateFlag | variantIndexFlag
        }
    }

    var compressorID: UInt8
    var storedLength: Int
    var originalLength: Int
    var payloadCRC: UInt32
    var created: Date
    var expires: Date?
    var key: String
    var etag: String?
    var lastModified: String?
    var contentType: String?
    /// The response said must-revalidate: once stale, the entry is never delivered without revalidating.
    var mustRevalidate = false
    /// The response's status code (200 for versions 1 and 2).
    var status = 200
    /// The response's header fields as stored (none for versions 1 and 2).
    var headerFields: [HeaderField] = []
    /// The request fields that selected this response (`Vary`), or an index's names with no values.
    var selecting: [SelectingField] = []
    /// The entry only says which request fields pick a variant (stored under its own key).
    var isVariantIndex = false
    /// Placeholders computed from the payload, by kind (version 4; none before).
    var placeholders: [String: String] = [:]

    /// The version this header is written as: the oldest that holds every field it carries.
    var writtenVersion: UInt8 { placeholders.isEmpty ? Self.baseVersion : Self.version }

    /// The name and size of the first string too long for the format, if any.
    var oversizedField: (name: String, bytes: Int)? {
        let fields: [(String, String?)] = [
            ("key", key), ("ETag", etag), ("Last-Modified", lastModified),
            ("content type", contentType)
        ]
        for (name, value) in fields {
            if let count = value?.utf8.count, count > Self.maxFieldBytes { return (name, count) }
        }
        for field in headerFields where max(field.name.utf8.count, field.value.utf8.count) > Self.maxFieldBytes {
            return ("\(field.name) header field", max(field.name.utf8.count, field.value.utf8.count))
        }
        for field in selecting where (field.value?.utf8.count ?? 0) > Self.maxFieldBytes {
            return ("\(field.name) selecting field", field.value?.utf8.count ?? 0)
        }
        for (kind, value) in placeholders where max(kind.utf8.count, value.utf8.count) > Self.maxFieldBytes {
            return ("\(kind) placeholder", max(kind.utf8.count, value.utf8.count))
        }
        return nil
    }

    /// Why this header cannot be written, naming the string too long for the format; nil when it can.
    var fieldProblem: String? {
        if let oversized = oversizedField {
            return
                "the \(oversized.name) is \(oversized.bytes) bytes; an entry header holds at most \(Self.maxFieldBytes)"
        }
        if max(headerFields.count, selecting.count) > Self.maxFieldCount {
            return "the response has \(max(headerFields.count, selecting.count)) header or Vary fields; "
                + "an entry keeps at most \(Self.maxFieldCount)"
        }
        if placeholders.count > Self.maxFieldCount {
            return "the entry has \(placeholders.count) placeholders; it keeps at most \(Self.maxFieldCount)"
        }
        let length =
            Self.minHeaderLength + 10 + key.utf8.count
            + [etag, lastModified, contentType].reduce(0) { $0 + ($1?.utf8.count ?? 0) }
            + headerFields.reduce(0) { $0 + 8 + $1.name.utf8.count + $1.value.utf8.count }
            + selecting.reduce(0) { $0 + 8 + $1.name.utf8.count + ($1.value?.utf8.count ?? 0) }
            + placeholders.reduce(4) { $0 + 8 + $1.key.utf8.count + $1.value.utf8.count }
        if length > Self.maxHeaderLength {
            return "the entry header would be \(length) bytes; it holds at most \(Self.maxHeaderLength)"
        }
        return nil
    }

    /// The header bytes; call only when `oversizedField` is nil.
    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.minHeaderLength + key.utf8.count + 128)
        out.append(contentsOf: Self.magic)
        out.append(writtenVersion)
        out.append(compressorID)
        out.append(
            (expires == nil ? 0 : Self.hasExpiryFlag) | (mustRevalidate ? Self.mustRevalidateFlag : 0)
                | (isVariantIndex ? Self.variantIndexFlag : 0))
        out.append(0)
        out.appendLittleEndian(UInt32(0))  // header length, patched below
        out.appendLittleEndian(UInt64(storedLength))
        out.appendLittleEndian(UInt64(originalLength))
        out.appendLittleEndian(payloadCRC)
        out.appendLittleEndian(created.timeIntervalSinceReferenceDate.bitPattern)
        out.appendLittleEndian(expires?.timeIntervalSinceReferenceDate.bitPattern ?? 0)
        func append(_ field: String?) {
            if let field {
                out.appendLittleEndian(UInt32(field.utf8.count))
                out.append(contentsOf: field.utf8)
            } else {
                out.appendLittleEndian(Self.absent)
            }
        }
        for field in [key, etag, lastModified, contentType] { append(field) }
        out.appendLittleEndian(UInt16(clamping: status))
        out.appendLittleEndian(UInt32(headerFields.count))
        for field in headerFields {
            append(field.name)
            append(field.value)
        }
        out.appendLittleEndian(UInt32(selecting.count))
        for field in selecting {
            append(field.name)
            append(field.value)
        }
        if !placeholders.isEmpty {
            out.appendLittleEndian(UInt32(placeholders.count))
            for (kind, value) in placeholders.sorted(by: { $0.key < $1.key }) {
                append(kind)
                append(value)
            }
        }
        let headerLength = UInt32(out.count + 4)
        withUnsafeBytes(of: headerLength.littleEndian) { length in
            for i in 0..<4 { out[8 + i] = length[i] }
        }
        let crc = out.withUnsafeBytes { CRC32.checksum($0) }
        out.appendLittleEndian(crc)
        return out
    }

    /// Reads the header length from the first `lengthPrefix` bytes, checking magic and version on the way.
    static func headerLength(fromPrefix bytes: UnsafeRawBufferPointer) throws(EntryCorruption) -> Int {
        guard bytes.count >= lengthPrefix else {
            throw EntryCorruption("file is \(bytes.count) bytes, shorter than an entry header")
        }
        guard bytes.prefix(4).elementsEqual(magic) else { throw EntryCorruption("bad magic") }
        guard readableVersions.contains(bytes[4]) else { throw EntryCorruption("unknown format version \(bytes[4])") }
        let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
        guard length >= minHeaderLength && length <= maxHeaderLength else {
            throw EntryCorruption("header length \(length) out of range")
        }
        return length
    }

    /// Parses and checks a whole header (`bytes` holds exactly the header) of a file `fileSize` bytes long.
    static func parse(_ bytes: UnsafeRawBufferPointer, fileSize: Int) throws(EntryCorruption) -> EntryHeader {
        let headerLength = try headerLength(fromPrefix: bytes)
        guard bytes.count == headerLength else {
            throw EntryCorruption("header is \(bytes.count) bytes, its length field says \(headerLength)")
        }
        let storedCRC = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: headerLength - 4, as: UInt32.self))
        guard CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<headerLength - 4])) == storedCRC else {
            throw EntryCorruption("header checksum mismatch")
        }
        let version = bytes[4]
        var reader = ByteReader(bytes: UnsafeRawBufferPointer(rebasing: bytes[0..<headerLength - 4]), offset: 5)
        let compressorID = try reader.byte()
        let flags = try reader.byte()
        guard flags & ~knownFlags(in: version) == 0 else {
            throw EntryCorruption("unknown flags \(flags) for format version \(version)")
        }
        _ = try reader.byte()
        _ = try reader.uint32()
        let stored = try reader.uint64()
        let original = try reader.uint64()
        guard stored <= UInt64(maxPayloadBytes), original <= UInt64(maxPayloadBytes) else {
            throw EntryCorruption("payload length over the \(maxPayloadBytes)-byte limit")
        }
        guard headerLength + Int(stored) == fileSize else {
            throw EntryCorruption("file is \(fileSize) bytes, header says \(headerLength + Int(stored))")
        }
        let crc = try reader.uint32()
        let created = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try reader.uint64()))
        let expiresBits = try reader.uint64()
        guard created.timeIntervalSinceReferenceDate.isFinite else { throw EntryCorruption("bad created date") }
        var expires: Date?
        if flags & hasExpiryFlag != 0 {
            let date = Date(timeIntervalSinceReferenceDate: Double(bitPattern: expiresBits))
            guard date.timeIntervalSinceReferenceDate.isFinite else { throw EntryCorruption("bad expiry date") }
            expires = date
        }
        guard let key = try reader.string() else { throw EntryCorruption("missing key") }
        let etag = try reader.string()
        let lastModified = try reader.string()
        let contentType = try reader.string()
        var header = EntryHeader(
            compressorID: compressorID, storedLength: Int(stored), originalLength: Int(original),
            payloadCRC: crc, created: created, expires: expires, key: key, etag: etag,
            lastModified: lastModified, contentType: contentType, mustRevalidate: flags & mustRevalidateFlag != 0)
        if version >= 3 {
            header.status = Int(try reader.uint16())
            header.isVariantIndex = flags & variantIndexFlag != 0
            let fieldCount = Int(try reader.uint32())
            guard fieldCount <= maxFieldCount else { throw EntryCorruption("\(fieldCount) header fields") }
            for _ in 0..<fieldCount {
                guard let name = try reader.string(), let value = try reader.string() else {
                    throw EntryCorruption("a header field without a name or value")
                }
                header.headerFields.append(HeaderField(name: name, value: value))
            }
            let selectingCount = Int(try reader.uint32())
            guard selectingCount <= maxFieldCount else { throw EntryCorruption("\(selectingCount) selecting fields") }
            for _ in 0..<selectingCount {
                guard let name = try reader.string() else { throw EntryCorruption("a selecting field without a name") }
                header.selecting.append(SelectingField(name: name, value: try reader.string()))
            }
        }
        if version >= 4 {
            let count = Int(try reader.uint32())
            guard count <= maxFieldCount else { throw EntryCorruption("\(count) placeholders") }
            for _ in 0..<count {
                guard let kind = try reader.string(), let value = try reader.string() else {
                    throw EntryCorruption("a placeholder without a kind or value")
                }
                header.placeholders[kind] = value
            }
        }
        guard reader.isAtEnd else { throw EntryCorruption("unexpected bytes after the header fields") }
        return header
    }
}

/// Bounds-checked little-endian reads over untrusted bytes.
private struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var offset: Int

    var isAtEnd: Bool { offset == bytes.count }

    private mutating func take(_ count: Int) throws(EntryCorruption) -> Int {
        guard count <= bytes.count - offset else { throw EntryCorruption("header ends early") }
        defer { offset += count }
        return offset
    }

    mutating func byte() throws(EntryCorruption) -> UInt8 { bytes[try take(1)] }

    mutating func uint16() throws(EntryCorruption) -> UInt16 {
        UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: try take(2), as: UInt16.self))
    }

    mutating func uint32() throws(EntryCorruption) -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: try take(4), as: UInt32.self))
    }

    mutating func uint64() throws(EntryCorruption) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: try take(8), as: UInt64.self))
    }

    /// A length-prefixed UTF-8 string, nil when marked absent.
    mutating func string() throws(EntryCorruption) -> String? {
        let length = try uint32()
        if length == 0xFFFF_FFFF { return nil }
        guard Int(length) <= EntryHeader.maxFieldBytes else { throw EntryCorruption("string field too long") }
        let start = try take(Int(length))
        guard let text = String(validating: bytes[start..<start + Int(length)], as: UTF8.self) else {
            throw EntryCorruption("string field is not UTF-8")
        }
        return text
    }
}

extension [UInt8] {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

extension EntryHeader {
    /// The header of `key`'s entry carrying `metadata`, for a payload as described.
    init(
        key: String, metadata: DiskEntryMetadata, compressorID: UInt8 = 0, storedLength: Int, originalLength: Int,
        payloadCRC: UInt32
    ) {
        self.init(
            compressorID: compressorID, storedLength: storedLength, originalLength: originalLength,
            payloadCRC: payloadCRC, created: metadata.created, expires: metadata.expires, key: key,
            etag: nil, lastModified: nil, contentType: nil)
        apply(metadata)
    }

    /// Takes every field `metadata` holds (dates, validators, content type, status, header and Vary
    /// fields, placeholders), keeping the key and the payload's description.
    mutating func apply(_ metadata: DiskEntryMetadata) {
        created = metadata.created
        expires = metadata.expires
        etag = metadata.validators.etag
        lastModified = metadata.validators.lastModified
        contentType = metadata.contentType
        mustRevalidate = metadata.mustRevalidate
        status = metadata.status
        headerFields = metadata.headerFields
        isVariantIndex = metadata.variantNames != nil
        selecting = metadata.variantNames.map { $0.map { SelectingField(name: $0, value: nil) } } ?? metadata.selecting
        placeholders = metadata.placeholders
    }

    /// What the header says beside the payload.
    var metadata: DiskEntryMetadata {
        var metadata = DiskEntryMetadata(
            validators: Validators(etag: etag, lastModified: lastModified), contentType: contentType,
            created: created, expires: expires, mustRevalidate: mustRevalidate)
        metadata.status = status
        metadata.headerFields = headerFields
        metadata.placeholders = placeholders
        if isVariantIndex {
            metadata.variantNames = selecting.map(\.name)
        } else {
            metadata.selecting = selecting
        }
        return metadata
    }
}
