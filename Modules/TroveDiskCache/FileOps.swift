#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import TroveCore

/// Which file a path named when it was opened: lets a cache delete a damaged file only if nobody has
/// renamed a fresh entry over it since.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        device = UInt64(truncatingIfNeeded: info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
    }
}

/// Thin POSIX wrappers that report failures as `TroveError`, telling a full disk apart from other faults.
enum FileOps {
    /// `diskFull` for ENOSPC/EDQUOT (the user must free space), `ioFailed` with the system's reason otherwise.
    static func error(_ operation: String, path: String, code: Int32) -> TroveError {
        if code == ENOSPC || code == EDQUOT { return .diskFull(path: path) }
        return .ioFailed(path: path, reason: "\(operation): \(String(cString: strerror(code)))")
    }

    /// Creates `path` (which must not exist) holding `header` then `payload`; on failure no file is left.
    static func createFile(at path: String, header: [UInt8], payload: Data, sync: Bool) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw error("create", path: path, code: errno) }
        do {
            try header.withUnsafeBytes { try writeAll(fd, $0, path: path) }
            try payload.withUnsafeBytes { try writeAll(fd, $0, path: path) }
            if sync && fsync(fd) != 0 { throw error("fsync", path: path, code: errno) }
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
        // close can report a deferred write error (e.g. on network file systems).
        if close(fd) != 0 {
            let code = errno
            unlink(path)
            throw error("close", path: path, code: code)
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw error("write", path: path, code: errno)
            }
            offset += written
        }
    }

    /// Fills `buffer` from `offset`; false if the file ended first.
    static func readExactly(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int,
                            path: String) throws -> Bool {
        guard let base = buffer.baseAddress else { return true }
        var done = 0
        while done < buffer.count {
            let got = pread(fd, base + done, buffer.count - done, off_t(offset + done))
            if got < 0 {
                if errno == EINTR { continue }
                throw error("read", path: path, code: errno)
            }
            if got == 0 { return false }
            done += got
        }
        return true
    }

    /// Atomically replaces `to` with `from` (POSIX rename).
    static func move(_ from: String, to: String) throws {
        if rename(from, to) != 0 { throw error("rename", path: to, code: errno) }
    }

    /// Like `move`, but a missing source is no error; returns whether something was moved.
    static func moveIfPresent(_ from: String, to: String) throws -> Bool {
        if rename(from, to) == 0 { return true }
        if errno == ENOENT { return false }
        throw error("rename", path: from, code: errno)
    }

    /// Creates a directory; an existing one is fine.
    static func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw error("mkdir", path: path, code: errno) }
    }

    static func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw error("open directory", path: path, code: errno) }
        defer { close(fd) }
        if fsync(fd) != 0 && errno != EINVAL { throw error("fsync directory", path: path, code: errno) }
    }

    /// The identity of whatever `path` names now, nil if nothing.
    static func identity(of path: String) -> FileIdentity? {
        var info = stat()
        return lstat(path, &info) == 0 ? FileIdentity(info) : nil
    }

    static func exists(_ path: String) -> Bool { identity(of: path) != nil }

    /// Removes a file, ignoring one that is already gone.
    @discardableResult
    static func removeFile(_ path: String) -> Bool { unlink(path) == 0 }
}
