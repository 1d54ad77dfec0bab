#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import TroveCore

/// What reading an entry file found.
enum EntryFileContents {
    case missing
    /// Damaged: the caller deletes it (if it is still the same file) and counts it.
    case corrupt(reason: String, identity: FileIdentity)
    /// A well-formed header; `storedPayload` is the payload as written (still compressed), when asked for.
    case valid(EntryHeader, storedPayload: Data?, identity: FileIdentity, fileSize: Int)
}

/// Reads entry files with as few system calls and copies as the format allows: one read takes the first
/// `firstReadBytes` (the header of nearly every entry, and all of a small one), and the rest of the payload
/// is read straight into the buffer the returned `Data` owns, which is never zero-filled first.
enum EntryFile {
    static let firstReadBytes = 4096

    /// Never allocates more than the header's checked lengths allow; I/O errors other than a missing file
    /// throw. In `cachedOnly` mode anything but a well-formed entry throws `WouldBlock`.
    static func read(at path: String, payload wantPayload: Bool, files: FileOps,
                     mode: ReadMode = .blocking) throws -> EntryFileContents {
        guard let fd = try files.openForReading(path, mode: mode) else { return .missing }
        defer { files.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            if mode == .cachedOnly { throw WouldBlock() }
            throw FileOps.error("stat", path: path, code: errno)
        }
        let identity = FileIdentity(info)
        do {
            guard (info.st_mode & S_IFMT) == S_IFREG else { throw EntryCorruption("not a regular file") }
            return try read(fd, size: Int(info.st_size), identity: identity, path: path, payload: wantPayload,
                            files: files, mode: mode)
        } catch let corruption as EntryCorruption {
            if mode == .cachedOnly { throw WouldBlock() }
            return .corrupt(reason: corruption.reason, identity: identity)
        }
    }

    private static func read(_ fd: Int32, size fileSize: Int, identity: FileIdentity, path: String,
                             payload wantPayload: Bool, files: FileOps, mode: ReadMode) throws -> EntryFileContents {
        guard fileSize >= EntryHeader.lengthPrefix else {
            throw EntryCorruption("file is \(fileSize) bytes, shorter than an entry header")
        }
        var head = [UInt8](repeating: 0, count: min(fileSize, firstReadBytes))
        guard try head.withUnsafeMutableBytes({ try files.readExactly(fd, into: $0, at: 0, path: path, mode: mode) })
        else { throw EntryCorruption("file ended inside its header") }
        let headerLength = try head.withUnsafeBytes { bytes throws(EntryCorruption) in
            try EntryHeader.headerLength(fromPrefix: bytes)
        }
        guard headerLength <= fileSize else {
            throw EntryCorruption("file is \(fileSize) bytes, shorter than its \(headerLength)-byte header")
        }
        if headerLength > head.count {  // a header with long validators: read the rest of it
            let start = head.count
            head += [UInt8](repeating: 0, count: headerLength - start)
            guard try head.withUnsafeMutableBytes({
                try files.readExactly(fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[start...]), at: start,
                                      path: path, mode: mode)
            }) else { throw EntryCorruption("file ended inside its header") }
        }
        let header = try head.withUnsafeBytes { bytes throws(EntryCorruption) in
            try EntryHeader.parse(UnsafeRawBufferPointer(rebasing: bytes[0..<headerLength]), fileSize: fileSize)
        }
        guard wantPayload else {
            return .valid(header, storedPayload: nil, identity: identity, fileSize: fileSize)
        }
        // parse checked that the header and the stored payload make up the whole file.
        let payload = try readPayload(fd, length: header.storedLength, alreadyRead: head[headerLength...],
                                      path: path, files: files, mode: mode)
        return .valid(header, storedPayload: payload, identity: identity, fileSize: fileSize)
    }

    /// The stored payload: the part of it the first read took, then the rest read into place.
    private static func readPayload(_ fd: Int32, length: Int, alreadyRead: ArraySlice<UInt8>, path: String,
                                    files: FileOps, mode: ReadMode) throws -> Data {
        guard length > 0 else { return Data() }
        guard let buffer = malloc(length) else {
            throw TroveError.ioFailed(path: path, reason: "cannot allocate \(length) bytes to read the entry")
        }
        let destination = UnsafeMutableRawBufferPointer(start: buffer, count: length)
        let copied = min(alreadyRead.count, length)
        alreadyRead.prefix(copied).withUnsafeBytes { destination.copyMemory(from: $0) }
        let complete: Bool
        do {
            complete = try files.readExactly(fd, into: UnsafeMutableRawBufferPointer(rebasing: destination[copied...]),
                                             at: alreadyRead.startIndex + copied, path: path, mode: mode)
        } catch {
            free(buffer)
            throw error
        }
        guard complete else {
            free(buffer)
            throw EntryCorruption("file ended inside its payload")
        }
        return Data(bytesNoCopy: buffer, count: length, deallocator: .free)
    }
}
