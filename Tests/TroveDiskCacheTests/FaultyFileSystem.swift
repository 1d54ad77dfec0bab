import Foundation
import Synchronization

@testable import TroveDiskCache

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The real file system with failures injected at chosen points: a call of one kind, on a path containing
/// some text, after a number of good calls, fails with a chosen errno; or the disk runs out of space after
/// a number of written bytes (the write that crosses the line is cut short, the next gets ENOSPC).
final class FaultyFileSystem: FileSystemCalls {
    enum Call: Sendable {
        case open, write, read, fsync, close, rename, unlink, mkdir
        /// Only the read that cannot wait for the disk (`.read` faults apply to it as well).
        case readIfCached
    }

    struct Fault: Sendable {
        var call: Call
        var errno: Int32
        /// Only calls on a path containing this (the source path for rename) fail.
        var pathContains: String
        /// Matching calls let through before failing.
        var skip: Int
        /// Failures left; nil for every matching call.
        var remaining: Int?
    }

    private struct State {
        var faults: [Fault] = []
        var spaceLeft: Int?
        var bytesPerWrite: Int?
        var pathsByDescriptor: [Int32: String] = [:]
        var failures = 0
        var cachedOnlyReads = 0
        var blockingReads = 0
    }

    private let real = PosixFileSystem()
    private let state = Mutex(State())

    func inject(_ call: Call, errno: Int32, whenPathContains text: String = "", after skip: Int = 0, times: Int? = nil)
    {
        state.withLock {
            $0.faults.append(Fault(call: call, errno: errno, pathContains: text, skip: skip, remaining: times))
        }
    }

    /// Writes fail with ENOSPC once `bytes` more have been written.
    func runOutOfSpace(after bytes: Int) {
        state.withLock { $0.spaceLeft = bytes }
    }

    /// Every write call takes at most `bytes` (a short write, as pipes and some file systems give), and
    /// nothing fails: the writer must carry on from where each call stopped.
    func shortenWrites(to bytes: Int) {
        state.withLock { $0.bytesPerWrite = bytes }
    }

    func heal() {
        state.withLock { state in
            state.faults = []
            state.spaceLeft = nil
            state.bytesPerWrite = nil
        }
    }

    /// How many calls failed because of an injected fault.
    var failures: Int { state.withLock { $0.failures } }

    /// The errno to fail this call with, if a fault matches.
    private func injected(_ call: Call, path: String?) -> Int32? {
        state.withLock { state in
            for index in state.faults.indices where state.faults[index].call == call {
                let fault = state.faults[index]
                guard fault.pathContains.isEmpty || (path ?? "").contains(fault.pathContains) else { continue }
                if fault.skip > 0 {
                    state.faults[index].skip -= 1
                    continue
                }
                if let remaining = fault.remaining {
                    if remaining == 0 { continue }
                    state.faults[index].remaining = remaining - 1
                }
                state.failures += 1
                return fault.errno
            }
            return nil
        }
    }

    /// How many reads took the path that cannot wait for the disk (`ReadMode.cachedOnly`) and got bytes.
    var cachedOnlyReads: Int { state.withLock { $0.cachedOnlyReads } }
    /// How many ordinary (blocking) reads got bytes.
    var blockingReads: Int { state.withLock { $0.blockingReads } }

    private func path(of fd: Int32) -> String? { state.withLock { $0.pathsByDescriptor[fd] } }

    func open(_ path: String, flags: Int32, mode: mode_t) -> Int32 {
        if let code = injected(.open, path: path) { return -code }
        let fd = real.open(path, flags: flags, mode: mode)
        if fd >= 0 { state.withLock { $0.pathsByDescriptor[fd] = path } }
        return fd
    }

    func write(_ fd: Int32, _ parts: [UnsafeRawBufferPointer]) -> Int {
        if let code = injected(.write, path: path(of: fd)) { return -Int(code) }
        let asked = parts.reduce(0) { $0 + $1.count }
        let allowed = state.withLock { state -> Int in
            let asked = min(asked, state.bytesPerWrite ?? asked)
            guard let left = state.spaceLeft else { return asked }
            let allowed = min(left, asked)
            state.spaceLeft = left - allowed
            if allowed == 0 { state.failures += 1 }
            return allowed
        }
        if allowed == 0 && asked > 0 { return -Int(ENOSPC) }
        // The disk fills inside the call: pass on only the parts, or the part of one, that still fit.
        var room = allowed
        var fitting: [UnsafeRawBufferPointer] = []
        for part in parts where room > 0 {
            let taken = min(room, part.count)
            fitting.append(UnsafeRawBufferPointer(rebasing: part[0..<taken]))
            room -= taken
        }
        return real.write(fd, fitting)
    }

    func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        if let code = injected(.read, path: path(of: fd)) { return -Int(code) }
        let got = real.read(fd, into: buffer, at: offset)
        if got > 0 { state.withLock { $0.blockingReads += 1 } }
        return got
    }

    /// Open and read faults apply to the calls that cannot wait for the disk as well.
    func openIfCached(_ path: String) -> Int32 {
        if let code = injected(.open, path: path) { return -code }
        let fd = real.openIfCached(path)
        if fd >= 0 { state.withLock { $0.pathsByDescriptor[fd] = path } }
        return fd
    }

    func readIfCached(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        let path = path(of: fd)
        if let code = injected(.readIfCached, path: path) ?? injected(.read, path: path) { return -Int(code) }
        let got = real.readIfCached(fd, into: buffer, at: offset)
        if got > 0 { state.withLock { $0.cachedOnlyReads += 1 } }
        return got
    }

    func fsync(_ fd: Int32) -> Int32 {
        if let code = injected(.fsync, path: path(of: fd)) { return -code }
        return real.fsync(fd)
    }

    func close(_ fd: Int32) -> Int32 {
        let path = state.withLock { $0.pathsByDescriptor.removeValue(forKey: fd) }
        if let code = injected(.close, path: path) {
            _ = real.close(fd)  // the descriptor is gone either way, as with a real failed close
            return -code
        }
        return real.close(fd)
    }

    func rename(_ from: String, _ to: String) -> Int32 {
        if let code = injected(.rename, path: from) { return -code }
        return real.rename(from, to)
    }

    func unlink(_ path: String) -> Int32 {
        if let code = injected(.unlink, path: path) { return -code }
        return real.unlink(path)
    }

    func mkdir(_ path: String, mode: mode_t) -> Int32 {
        if let code = injected(.mkdir, path: path) { return -code }
        return real.mkdir(path, mode: mode)
    }
}
