import Foundation
import TroveCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which file a path named when it was opened: lets a cache delete a damaged file only if nobody has
/// renamed a fresh entry over it since.
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        device = UInt64(truncatingIfNeeded: info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
    }
}

/// POSIX file operations that report failures as `TroveError`, telling a full disk apart from other
/// faults. Everything that reads or changes a file goes through `calls`, the fault-injection seam.
struct FileOps: Sendable {
    let calls: any FileSystemCalls

    init(calls: any FileSystemCalls = PosixFileSystem()) {
        self.calls = calls
    }

    /// `diskFull` for ENOSPC/EDQUOT (the user must free space), `ioFailed` with the system's reason otherwise.
    static func error(_ operation: String, path: String, code: Int32) -> TroveError {
        if code == ENOSPC || code == EDQUOT { return .diskFull(path: path) }
        return .ioFailed(path: path, reason: "\(operation): \(String(cString: strerror(code)))")
    }

    /// Creates `path` (which must not exist) holding `header` then `payload`; on failure no file is left.
    func createFile(at path: String, header: [UInt8], payload: Data, sync: Bool) throws {
        let fd = calls.open(path, flags: O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o644)
        guard fd >= 0 else { throw Self.error("create", path: path, code: -fd) }
        do {
            // Header and payload in one gathering write: a second write call costs ext4 ~15% of a 64 KiB store.
            try header.withUnsafeBytes { head in
                try payload.withUnsafeBytes { body in try writeAll(fd, [head, body], path: path) }
            }
        } catch {
            _ = calls.close(fd)
            _ = calls.unlink(path)
            throw error
        }
        try finishFile(fd, at: path, sync: sync)
    }

    /// Creates `path` (which must not exist), empty, open for reading and writing: a descriptor.
    func createEmptyFile(at path: String) throws -> Int32 {
        let fd = calls.open(path, flags: O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o644)
        guard fd >= 0 else { throw Self.error("create", path: path, code: -fd) }
        return fd
    }

    /// Syncs (when asked) and closes a file just written; on failure the file is removed and the error thrown.
    func finishFile(_ fd: Int32, at path: String, sync: Bool) throws {
        if sync {
            let status = calls.fsync(fd)
            if status != 0 {
                _ = calls.close(fd)
                _ = calls.unlink(path)
                throw Self.error("fsync", path: path, code: -status)
            }
        }
        // close can report a deferred write error (e.g. on network file systems).
        let status = calls.close(fd)
        if status != 0 {
            _ = calls.unlink(path)
            throw Self.error("close", path: path, code: -status)
        }
    }

    /// `count` bytes of the file from `offset`; throws `ioFailed` when the file ends first.
    func readBytes(_ fd: Int32, at offset: Int, count: Int, path: String) throws -> Data {
        var data = Data(count: count)
        let complete = try data.withUnsafeMutableBytes { try readExactly(fd, into: $0, at: offset, path: path) }
        guard complete else { throw TroveError.ioFailed(path: path, reason: "read: the file ended early") }
        return data
    }

    /// Writes every byte of `parts`, in order, carrying on after short writes.
    func writeAll(_ fd: Int32, _ parts: [UnsafeRawBufferPointer], path: String) throws {
        var rest = parts.filter { !$0.isEmpty }
        while !rest.isEmpty {
            let written = calls.write(fd, rest)
            if written < 0 {
                if written == -Int(EINTR) { continue }
                throw Self.error("write", path: path, code: Int32(-written))
            }
            if written == 0 { throw Self.error("write", path: path, code: EIO) }
            // A short write: drop what went out, whole parts first.
            var done = written
            while let first = rest.first, done >= first.count {
                done -= first.count
                rest.removeFirst()
            }
            if done > 0 { rest[0] = UnsafeRawBufferPointer(rebasing: rest[0][done...]) }
        }
    }

    /// Opens a file for reading: a descriptor, nil if it does not exist. In `cachedOnly` mode "does not
    /// exist" comes from the kernel's cache of negative lookups; every other failure is `WouldBlock`, and
    /// the blocking read on the I/O queue tells what it was.
    func openForReading(_ path: String, mode: ReadMode = .blocking) throws -> Int32? {
        let fd = mode == .blocking ? calls.open(path, flags: O_RDONLY | O_CLOEXEC, mode: 0) : calls.openIfCached(path)
        if fd >= 0 { return fd }
        if -fd == ENOENT || -fd == ENOTDIR { return nil }
        if mode == .cachedOnly { throw WouldBlock() }
        throw Self.error("open", path: path, code: -fd)
    }

    func close(_ fd: Int32) { _ = calls.close(fd) }

    /// Fills `buffer` from `offset`; false if the file ended first. In `cachedOnly` mode a read that
    /// would wait for the disk, fails, or meets the end of the file is `WouldBlock`.
    func readExactly(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int,
        path: String, mode: ReadMode = .blocking
    ) throws -> Bool {
        var done = 0
        while done < buffer.count {
            let got = try readOnce(
                fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), at: offset + done,
                path: path, mode: mode)
            if got == 0 {
                if mode == .cachedOnly { throw WouldBlock() }
                return false
            }
            done += got
        }
        return true
    }

    /// One read call (repeated only when interrupted): the bytes read, 0 at the end of the file, maybe
    /// fewer than asked. In `cachedOnly` mode a read that would wait for the disk or fails is `WouldBlock`.
    func readOnce(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int,
        path: String, mode: ReadMode = .blocking
    ) throws -> Int {
        while true {
            let got =
                mode == .blocking
                ? calls.read(fd, into: buffer, at: offset)
                : calls.readIfCached(fd, into: buffer, at: offset)
            if got >= 0 { return got }
            if got == -Int(EINTR) { continue }
            if mode == .cachedOnly { throw WouldBlock() }
            throw Self.error("read", path: path, code: Int32(-got))
        }
    }

    /// Atomically replaces `to` with `from` (POSIX rename).
    func move(_ from: String, to: String) throws {
        let status = calls.rename(from, to)
        if status != 0 { throw Self.error("rename", path: to, code: -status) }
    }

    /// Like `move`, but a missing source is no error; returns whether something was moved.
    func moveIfPresent(_ from: String, to: String) throws -> Bool {
        let status = calls.rename(from, to)
        if status == 0 { return true }
        if -status == ENOENT { return false }
        throw Self.error("rename", path: from, code: -status)
    }

    /// Creates a directory; an existing one is fine.
    func makeDirectory(_ path: String) throws {
        let status = calls.mkdir(path, mode: 0o755)
        if status != 0 && -status != EEXIST { throw Self.error("mkdir", path: path, code: -status) }
    }

    func syncDirectory(_ path: String) throws {
        let fd = calls.open(path, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
        guard fd >= 0 else { throw Self.error("open directory", path: path, code: -fd) }
        defer { _ = calls.close(fd) }
        let status = calls.fsync(fd)
        if status != 0 && -status != EINVAL { throw Self.error("fsync directory", path: path, code: -status) }
    }

    /// The identity of whatever `path` names now, nil if nothing.
    func identity(of path: String) -> FileIdentity? {
        var info = stat()
        return lstat(path, &info) == 0 ? FileIdentity(info) : nil
    }

    func exists(_ path: String) -> Bool { identity(of: path) != nil }

    /// How many links name what `path` names (for a folder on most file systems: 2 plus its subfolders); nil
    /// if nothing is there.
    func linkCount(of path: String) -> Int? {
        var info = stat()
        return lstat(path, &info) == 0 ? Int(info.st_nlink) : nil
    }

    /// Removes a file; false if it was already gone. Any other failure throws (the file is still there).
    func remove(_ path: String) throws -> Bool {
        let status = calls.unlink(path)
        if status == 0 { return true }
        if -status == ENOENT { return false }
        throw Self.error("delete", path: path, code: -status)
    }

    /// Removes a file where a failure needs no report (a temp file, a best-effort cleanup);
    /// false if it could not be removed.
    @discardableResult
    func removeFile(_ path: String) -> Bool { calls.unlink(path) == 0 }
}
