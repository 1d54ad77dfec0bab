import Foundation
import TroveCore
import TroveSupport

/// One entry in Trove's disk entry format, as bytes in memory rather than a file: what a shared cache tier
/// stores, so a value read back from another process carries its full key, validators, content type,
/// dates and CRC-32, and a damaged or foreign value is caught before it is served.
///
/// The bytes are exactly an uncompressed entry file (see `EntryHeader`), made and checked by the same
/// header code the disk cache uses.
package enum EntryCodec {
    /// `data` and its metadata as one entry. Throws `invalidConfiguration` when a field is too long for the
    /// format (a key or validator over 64 KiB) or the payload is over the format's 1 GiB limit.
    package static func encode(_ data: Data, forKey key: String, metadata: DiskEntryMetadata) throws -> Data {
        guard data.count <= EntryHeader.maxPayloadBytes else {
            throw TroveError.invalidConfiguration(
                "an entry of \(data.count) bytes is over the \(EntryHeader.maxPayloadBytes)-byte entry limit")
        }
        let header = EntryHeader(
            key: key, metadata: metadata, storedLength: data.count, originalLength: data.count,
            payloadCRC: CRC32.checksum(data))
        if let problem = header.fieldProblem { throw TroveError.invalidConfiguration(problem) }
        var out = Data(header.encoded())
        out.append(data)
        return out
    }

    /// The entry in `value`, checked: magic and version, header CRC, lengths, that it was stored under
    /// `expectedKey` (not a value written for another key or by another program), and the payload's CRC.
    /// Throws `EntryRejected` naming what was wrong.
    package static func decode(_ value: Data, expectedKey: String) throws(EntryRejected) -> DiskEntry {
        let parsed = value.withUnsafeBytes { bytes -> Result<(EntryHeader, Int), EntryCorruption> in
            do throws(EntryCorruption) {
                let length = try EntryHeader.headerLength(fromPrefix: bytes)
                guard length <= bytes.count else {
                    throw EntryCorruption("value is \(bytes.count) bytes, shorter than its \(length)-byte header")
                }
                let header = try EntryHeader.parse(
                    UnsafeRawBufferPointer(rebasing: bytes[0..<length]),
                    fileSize: bytes.count)
                return .success((header, length))
            } catch {
                return .failure(error)
            }
        }
        let header: EntryHeader
        let headerLength: Int
        switch parsed {
        case let .success((parsedHeader, length)): (header, headerLength) = (parsedHeader, length)
        case let .failure(corruption): throw EntryRejected(corruption.reason)
        }
        guard header.compressorID == 0, header.storedLength == header.originalLength else {
            throw EntryRejected(
                "payload is compressed (compressor id \(header.compressorID)); shared entries are stored as is")
        }
        guard header.key == expectedKey else {
            throw EntryRejected("value was stored for another key (\(header.key.prefix(80)))")
        }
        let payload = Self.tail(of: value, from: headerLength)
        guard CRC32.checksum(payload) == header.payloadCRC else { throw EntryRejected("payload checksum mismatch") }
        return DiskEntry(
            key: header.key, data: payload, metadata: header.metadata, storedBytes: payload.count,
            compressed: false)
    }

    /// Payloads at least this large share the value's bytes instead of being copied out of them.
    static let sharingThreshold = 16 << 10

    /// `value` from `offset` on, as a `Data` of its own (indices from 0). A large payload points into
    /// `value`'s storage, which its deallocator keeps alive (an immutable copy: nobody can write to it), so
    /// a hit costs no copy of the image; a small one is copied.
    static func tail(of value: Data, from offset: Int) -> Data {
        let count = value.count - offset
        guard count >= sharingThreshold else { return value.subdata(in: value.startIndex + offset..<value.endIndex) }
        return value.withUnsafeBytes { bytes in
            Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes.baseAddress! + offset), count: count,
                deallocator: .custom { _, _ in withExtendedLifetime(value) {} })
        }
    }
}

/// Why `EntryCodec.decode` refused a value: damaged, foreign (not Trove's format), or stored for another key.
package struct EntryRejected: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, e.g. "bad magic" or "payload checksum mismatch".
    package let reason: String

    /// A rejection for `reason`.
    package init(_ reason: String) { self.reason = reason }

    /// "not a valid Trove entry: <reason>".
    package var description: String { "not a valid Trove entry: \(reason)" }
}
