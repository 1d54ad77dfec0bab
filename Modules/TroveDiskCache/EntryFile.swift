import Foundation
import TroveCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What reading an entry file found.
enum EntryFileContents {
    case missing
    /// Damaged: the caller deletes it (if it is still the same file) and counts it.
    case corrupt(reason: String, identity: FileIdentity)
    /// A well-formed header; `storedPayload` is the payload as written (still compressed), when asked for.
    /// `file` is the version of the file the bytes came from.
    case valid(EntryHeader, storedPayload: Data?, file: FileVersion)
}

/// Reads entry files with as few system calls and copies as the format allows. A read that wants the payload
/// takes the whole file in one read into one buffer, never zero-filled first, and the returned payload `Data`
/// is the tail of that buffer: no second read, no copy. A header-only read (the index scan) takes the first
/// `firstReadBytes`, which hold the header of nearly every entry.
enum EntryFile {
    static let firstReadBytes = 4096
    /// Files up to this size are read whole before their header is checked; bigger ones after.
    static let wholeReadWithoutHeaderCheck = 16 << 20

    /// Allocates at most the file's size (or `expectedSize` + 1), and more than 16 MiB only for a file
    /// whose header checked out; I/O errors other than a missing file throw. In `cachedOnly` mode anything
    /// but a well-formed entry throws `WouldBlock`. `expectedSize`, the size the index last saw, lets a
    /// whole read go first and `fstat` after it (no more calls than a plain read of a file); a file of
    /// another size is read again the usual way. The version a payload read returns is always taken after
    /// the bytes were read, so a write that lands during the read shows as a newer version.
    /// `headerBytesOnly` (without the payload) reads the length prefix and then exactly the header: not one
    /// byte of the payload, at the price of a second read.
    static func read(
        at path: String, payload wantPayload: Bool, files: FileOps, mode: ReadMode = .blocking,
        expectedSize: Int? = nil, headerBytesOnly: Bool = false
    ) throws -> EntryFileContents {
        guard let fd = try files.openForReading(path, mode: mode) else { return .missing }
        defer { files.close(fd) }
        if wantPayload, let expectedSize, expectedSize >= EntryHeader.lengthPrefix,
            expectedSize <= wholeReadWithoutHeaderCheck,
            let contents = try readExpecting(fd, size: expectedSize, path: path, files: files, mode: mode)
        {
            return contents
        }
        let file = try fileVersion(fd, path: path, mode: mode)
        do {
            guard file.isRegular else { throw EntryCorruption("not a regular file") }
            return try read(
                fd, file: file.version, path: path, payload: wantPayload, files: files, mode: mode,
                firstRead: headerBytesOnly ? EntryHeader.lengthPrefix : firstReadBytes)
        } catch let corruption as EntryCorruption {
            if mode == .cachedOnly { throw WouldBlock() }
            return .corrupt(reason: corruption.reason, identity: file.version.identity)
        }
    }

    private static func fileVersion(_ fd: Int32, path: String, mode: ReadMode) throws -> (
        version: FileVersion, isRegular: Bool
    ) {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            if mode == .cachedOnly { throw WouldBlock() }
            throw FileOps.error("stat", path: path, code: errno)
        }
        return (FileVersion(info), (info.st_mode & S_IFMT) == S_IFREG)
    }

    /// One read into a buffer a byte longer than `size`, then `fstat`: nil (after freeing the buffer)
    /// unless the file is `size` bytes and the read got all of them. Anything odd (another size, a short
    /// read) is left to the usual path.
    private static func readExpecting(
        _ fd: Int32, size: Int, path: String, files: FileOps,
        mode: ReadMode
    ) throws -> EntryFileContents? {
        guard let base = malloc(size + 1) else { return nil }
        // A failed read (say a directory where the file was) is left to the usual path to name.
        guard
            let got = try? files.readOnce(
                fd, into: UnsafeMutableRawBufferPointer(start: base, count: size + 1),
                at: 0, path: path, mode: mode)
        else {
            free(base)
            return nil
        }
        let file = try? fileVersion(fd, path: path, mode: mode)
        guard let file, file.isRegular, file.version.size == size, got == size else {
            free(base)
            return nil
        }
        do {
            return try parseWhole(base, file: file.version)
        } catch {
            if mode == .cachedOnly { throw WouldBlock() }
            return .corrupt(reason: error.reason, identity: file.version.identity)
        }
    }

    private static func read(
        _ fd: Int32, file: FileVersion, path: String,
        payload wantPayload: Bool, files: FileOps, mode: ReadMode, firstRead: Int = firstReadBytes
    ) throws -> EntryFileContents {
        let fileSize = file.size
        guard fileSize >= EntryHeader.lengthPrefix else {
            throw EntryCorruption("file is \(fileSize) bytes, shorter than an entry header")
        }
        if wantPayload {
            if fileSize > wholeReadWithoutHeaderCheck {
                // A big file's header must check out before its size is trusted with an allocation.
                _ = try read(fd, file: file, path: path, payload: false, files: files, mode: mode)
            }
            return try readWhole(fd, file: file, path: path, files: files, mode: mode)
        }
        var head = [UInt8](repeating: 0, count: min(fileSize, firstRead))
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
            guard
                try head.withUnsafeMutableBytes({
                    try files.readExactly(
                        fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[start...]), at: start,
                        path: path, mode: mode)
                })
            else { throw EntryCorruption("file ended inside its header") }
        }
        let header = try head.withUnsafeBytes { bytes throws(EntryCorruption) in
            try EntryHeader.parse(UnsafeRawBufferPointer(rebasing: bytes[0..<headerLength]), fileSize: fileSize)
        }
        return .valid(header, storedPayload: nil, file: file)
    }

    /// Header and payload in one read. The size comes from fstat and is bounded before anything is
    /// allocated: no file larger than the biggest possible entry is read, and one over 16 MiB only after
    /// its header has been checked.
    private static func readWhole(
        _ fd: Int32, file: FileVersion, path: String,
        files: FileOps, mode: ReadMode
    ) throws -> EntryFileContents {
        let fileSize = file.size
        guard fileSize <= EntryHeader.maxHeaderLength + EntryHeader.maxPayloadBytes else {
            throw EntryCorruption("file is \(fileSize) bytes, larger than any entry can be")
        }
        guard let base = malloc(fileSize) else {
            throw TroveError.ioFailed(path: path, reason: "cannot allocate \(fileSize) bytes to read the entry")
        }
        let after: FileVersion
        do {
            guard
                try files.readExactly(
                    fd, into: UnsafeMutableRawBufferPointer(start: base, count: fileSize), at: 0,
                    path: path, mode: mode)
            else {
                throw EntryCorruption("file ended before the \(fileSize) bytes its size promised")
            }
            after = try fileVersion(fd, path: path, mode: mode).version
        } catch {
            free(base)
            throw error
        }
        guard after.size == fileSize else {
            free(base)
            throw EntryCorruption("file changed size while it was read")
        }
        return try parseWhole(base, file: after)
    }

    /// Checks the header at the start of a buffer holding the whole file (`file.size` bytes) and hands the
    /// buffer to the payload `Data`, whose deallocator frees it; on corruption the buffer is freed here.
    private static func parseWhole(_ base: UnsafeMutableRawPointer, file: FileVersion) throws(EntryCorruption)
        -> EntryFileContents
    {
        let fileSize = file.size
        let header: EntryHeader
        do throws(EntryCorruption) {
            let bytes = UnsafeRawBufferPointer(start: base, count: fileSize)
            let headerLength = try EntryHeader.headerLength(fromPrefix: bytes)
            guard headerLength <= fileSize else {
                throw EntryCorruption("file is \(fileSize) bytes, shorter than its \(headerLength)-byte header")
            }
            // parse checks that the header and the stored payload make up the whole file.
            header = try EntryHeader.parse(
                UnsafeRawBufferPointer(rebasing: bytes[0..<headerLength]), fileSize: fileSize)
        } catch {
            free(base)
            throw error
        }
        guard header.storedLength > 0 else {
            free(base)
            return .valid(header, storedPayload: Data(), file: file)
        }
        // The payload is the buffer's tail; freeing it frees the whole buffer.
        let payload = Data(
            bytesNoCopy: base + (fileSize - header.storedLength), count: header.storedLength,
            deallocator: .custom { _, _ in free(base) })
        return .valid(header, storedPayload: payload, file: file)
    }
}
