import CTroveSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few POSIX calls through which a `DiskCache` touches the disk: the seam where tests inject faults
/// (a full disk, an I/O error, a failed rename or delete) at chosen points. Each call returns its result,
/// or the negated `errno` when it failed, so no global error state crosses the seam.
protocol FileSystemCalls: Sendable {
    /// A file descriptor, or -errno.
    func open(_ path: String, flags: Int32, mode: mode_t) -> Int32
    /// Writes the parts in order with one call (a gathering write): bytes written, possibly fewer than
    /// asked, or -errno.
    func write(_ fd: Int32, _ parts: [UnsafeRawBufferPointer]) -> Int
    /// Bytes read (0 at the end of the file), or -errno.
    func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int
    /// Opens read-only, or -EAGAIN instead of waiting for the disk to look the path up (see `ReadMode`).
    func openIfCached(_ path: String) -> Int32
    /// Reads from the page cache only: bytes read (0 at the end, maybe short), or -EAGAIN when it would wait.
    func readIfCached(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int
    /// 0 or -errno.
    func fsync(_ fd: Int32) -> Int32
    /// 0 or -errno.
    func close(_ fd: Int32) -> Int32
    /// 0 or -errno.
    func rename(_ from: String, _ to: String) -> Int32
    /// 0 or -errno.
    func unlink(_ path: String) -> Int32
    /// 0 or -errno.
    func mkdir(_ path: String, mode: mode_t) -> Int32
}

/// The real file system.
struct PosixFileSystem: FileSystemCalls {
    func open(_ path: String, flags: Int32, mode: mode_t) -> Int32 {
        let fd = systemOpen(path, flags, mode)
        return fd >= 0 ? fd : -errno
    }

    func write(_ fd: Int32, _ parts: [UnsafeRawBufferPointer]) -> Int {
        let vectors = parts.compactMap { part in
            part.baseAddress.map { iovec(iov_base: UnsafeMutableRawPointer(mutating: $0), iov_len: part.count) }
        }
        guard !vectors.isEmpty else { return 0 }
        let written = vectors.withUnsafeBufferPointer { systemWritev(fd, $0.baseAddress, Int32($0.count)) }
        return written >= 0 ? written : -Int(errno)
    }

    func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        let got = pread(fd, base, buffer.count, off_t(offset))
        return got >= 0 ? got : -Int(errno)
    }

    func openIfCached(_ path: String) -> Int32 { trove_open_if_cached(path) }

    func readIfCached(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        return trove_read_if_cached(fd, base, buffer.count, off_t(offset))
    }

    func fsync(_ fd: Int32) -> Int32 { systemFsync(fd) == 0 ? 0 : -errno }
    func close(_ fd: Int32) -> Int32 { systemClose(fd) == 0 ? 0 : -errno }
    func rename(_ from: String, _ to: String) -> Int32 { systemRename(from, to) == 0 ? 0 : -errno }
    func unlink(_ path: String) -> Int32 { systemUnlink(path) == 0 ? 0 : -errno }
    func mkdir(_ path: String, mode: mode_t) -> Int32 { systemMkdir(path, mode) == 0 ? 0 : -errno }
}

// The C functions under other names, so the methods above can share theirs.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemWritev(_ fd: Int32, _ vectors: UnsafePointer<iovec>?, _ count: Int32) -> Int {
    writev(fd, vectors, count)
}
private func systemFsync(_ fd: Int32) -> Int32 { fsync(fd) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
private func systemUnlink(_ path: String) -> Int32 { unlink(path) }
private func systemMkdir(_ path: String, _ mode: mode_t) -> Int32 { mkdir(path, mode) }
