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

/// Reads entry files with as few system calls and copies as the format allows. A read that wants the payload
/// takes the whole file in one read into one buffer, never zero-filled first, and the returned payload `Data`
/// is the tail of that buffer: no second read, no copy. A header-only read (the index scan) takes the first
/// `firstReadBytes`, which hold the header of nearly every entry.
enum EntryFile {
    static let firstReadBytes = 4096
    /// Files up to this size are read whole before their header is checked; bigger ones after.
    static let wholeReadWithoutHeaderCheck = 16 << 20

    /// Allocates at most the file's size, and more than 16 MiB only for a file whose header checked out;
    /// I/O errors other than a missing file throw. In `cachedOnly` mode anything but a well-formed entry throws `WouldBlock`.
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
        if wantPayload {
            if fileSize > wholeReadWithoutHeaderCheck {
                // A big file's header must check out before its size is trusted with an allocation.
                _ = try read(fd, size: fileSize, identity: identity, path: path, payload: false, files: files, mode: mode)
            }
            return try readWhole(fd, size: fileSize, identity: identity, path: path, files: files, mode: mode)
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
        return .valid(header, storedPayload: nil, identity: identity, fileSize: fileSize)
    }

    /// Header and payload in one read. The size comes from fstat and is bounded before anything is
    /// allocated: no file larger than the biggest possible entry is read, and one over 16 MiB only after
    /// its header has been checked.
    private static func readWhole(_ fd: Int32, size fileSize: Int, identity: FileIdentity, path: String,
                                  files: FileOps, mode: ReadMode) throws -> EntryFileContents {
        guard fileSize <= EntryHeader.maxHeaderLength + EntryHeader.maxPayloadBytes else {
            throw EntryCorruption("file is \(fileSize) bytes, larger than any entry can be")
        }
        guard let base = malloc(fileSize) else {
            throw TroveError.ioFailed(path: path, reason: "cannot allocate \(fileSize) bytes to read the entry")
        }
        let whole = UnsafeMutableRawBufferPointer(start: base, count: fileSize)
        let header: EntryHeader
        do {
            guard try files.readExactly(fd, into: whole, at: 0, path: path, mode: mode) else {
                throw EntryCorruption("file ended before the \(fileSize) bytes its size promised")
            }
            let bytes = UnsafeRawBufferPointer(whole)
            let headerLength = try EntryHeader.headerLength(fromPrefix: bytes)
            guard headerLength <= fileSize else {
                throw EntryCorruption("file is \(fileSize) bytes, shorter than its \(headerLength)-byte header")
            }
            // parse checks that the header and the stored payload make up the whole file.
            header = try EntryHeader.parse(UnsafeRawBufferPointer(rebasing: bytes[0..<headerLength]), fileSize: fileSize)
        } catch {
            free(base)
            throw error
        }
        guard header.storedLength > 0 else {
            free(base)
            return .valid(header, storedPayload: Data(), identity: identity, fileSize: fileSize)
        }
        // The payload is the buffer's tail; freeing it frees the whole buffer.
        let payload = Data(bytesNoCopy: base + (fileSize - header.storedLength), count: header.storedLength,
                           deallocator: .custom { _, _ in free(base) })
        return .valid(header, storedPayload: payload, identity: identity, fileSize: fileSize)
    }
}
