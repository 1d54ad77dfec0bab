#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// What reading an entry file found.
enum EntryFileContents {
    case missing
    /// Damaged: the caller deletes it (if it is still the same file) and counts it.
    case corrupt(reason: String, identity: FileIdentity)
    /// A well-formed header; `storedPayload` is the payload as written (still compressed), when asked for.
    case valid(EntryHeader, storedPayload: Data?, identity: FileIdentity, fileSize: Int)
}

/// Reads entry files: the header first (its length is in the first bytes), then the payload if wanted.
enum EntryFile {
    /// Never allocates more than the header's checked lengths allow; I/O errors other than a missing file throw.
    static func read(at path: String, payload wantPayload: Bool, files: FileOps) throws -> EntryFileContents {
        guard let fd = try files.openForReading(path) else { return .missing }
        defer { files.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileOps.error("stat", path: path, code: errno) }
        let identity = FileIdentity(info)
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return .corrupt(reason: "not a regular file", identity: identity)
        }
        let fileSize = Int(info.st_size)
        do {
            var prefix = [UInt8](repeating: 0, count: EntryHeader.lengthPrefix)
            let prefixRead = try prefix.withUnsafeMutableBytes {
                try files.readExactly(fd, into: $0, at: 0, path: path)
            }
            guard prefixRead else { throw EntryCorruption("file is \(fileSize) bytes, shorter than an entry header") }
            let headerLength = try prefix.withUnsafeBytes { bytes throws(EntryCorruption) in
                try EntryHeader.headerLength(fromPrefix: bytes)
            }
            guard headerLength <= fileSize else {
                throw EntryCorruption("file is \(fileSize) bytes, shorter than its \(headerLength)-byte header")
            }
            var headerBytes = [UInt8](repeating: 0, count: headerLength)
            let headerRead = try headerBytes.withUnsafeMutableBytes {
                try files.readExactly(fd, into: $0, at: 0, path: path)
            }
            guard headerRead else { throw EntryCorruption("file ended inside its header") }
            let header = try headerBytes.withUnsafeBytes { bytes throws(EntryCorruption) in
                try EntryHeader.parse(bytes, fileSize: fileSize)
            }
            guard wantPayload else {
                return .valid(header, storedPayload: nil, identity: identity, fileSize: fileSize)
            }
            var payload = Data(count: header.storedLength)
            let payloadRead = try payload.withUnsafeMutableBytes {
                try files.readExactly(fd, into: $0, at: headerLength, path: path)
            }
            guard payloadRead else { throw EntryCorruption("file ended inside its payload") }
            return .valid(header, storedPayload: payload, identity: identity, fileSize: fileSize)
        } catch let corruption as EntryCorruption {
            return .corrupt(reason: corruption.reason, identity: identity)
        }
    }
}
