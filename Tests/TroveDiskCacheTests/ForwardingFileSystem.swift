@testable import TroveDiskCache

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A test's file system that intercepts a few calls and passes every other one to the real file system.
protocol ForwardingFileSystem: FileSystemCalls {
    var real: PosixFileSystem { get }
}

extension ForwardingFileSystem {
    func open(_ path: String, flags: Int32, mode: mode_t) -> Int32 { real.open(path, flags: flags, mode: mode) }
    func write(_ fd: Int32, _ parts: [UnsafeRawBufferPointer]) -> Int { real.write(fd, parts) }
    func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        real.read(fd, into: buffer, at: offset)
    }
    func openIfCached(_ path: String) -> Int32 { real.openIfCached(path) }
    func readIfCached(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        real.readIfCached(fd, into: buffer, at: offset)
    }
    func fsync(_ fd: Int32) -> Int32 { real.fsync(fd) }
    func close(_ fd: Int32) -> Int32 { real.close(fd) }
    func rename(_ from: String, _ to: String) -> Int32 { real.rename(from, to) }
    func unlink(_ path: String) -> Int32 { real.unlink(path) }
    func mkdir(_ path: String, mode: mode_t) -> Int32 { real.mkdir(path, mode: mode) }
}
