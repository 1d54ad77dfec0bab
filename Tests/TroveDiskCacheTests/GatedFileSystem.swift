import Dispatch
import Foundation
import Synchronization

@testable import TroveDiskCache

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The real file system with a gate in front of every new temp file: while the gate is shut, a write
/// waits there (on the cache's I/O thread), so a test can see what a store does before its write lands.
/// Counts the writers that reached the gate and the renames that installed each entry file.
final class GatedFileSystem: ForwardingFileSystem {
    private struct State {
        var shut = false
        var blocked = 0
        var arrivals = 0
        var arrivalWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var installs: [String: Int] = [:]
    }

    let real = PosixFileSystem()
    private let state = Mutex(State())
    private let gate = DispatchSemaphore(value: 0)
    /// The cache's tmp/ directory, where each write creates its file.
    private let temporary: String

    init(cacheDirectory: URL) {
        temporary = cacheDirectory.standardizedFileURL.path + "/tmp/"
    }

    /// Writes wait at the gate from now on.
    func shut() {
        state.withLock { $0.shut = true }
    }

    /// Lets every waiting write through, and later ones too.
    func open() {
        let blocked = state.withLock { state in
            state.shut = false
            defer { state.blocked = 0 }
            return state.blocked
        }
        for _ in 0..<blocked { gate.signal() }
    }

    /// Waits until `count` writes in all have reached the gate (shut or open).
    func waitForArrivals(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state -> Bool in
                if state.arrivals >= count { return true }
                state.arrivalWaiters.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    /// How many times an entry file was renamed into place at `path`.
    func installs(at path: String) -> Int {
        state.withLock { $0.installs[path] ?? 0 }
    }

    /// Renames into place of every entry file.
    var totalInstalls: Int {
        state.withLock { $0.installs.values.reduce(0, +) }
    }

    func open(_ path: String, flags: Int32, mode: mode_t) -> Int32 {
        if flags & O_CREAT != 0 && path.hasPrefix(temporary) { arrive() }
        return real.open(path, flags: flags, mode: mode)
    }

    private func arrive() {
        let (mustWait, ready) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
            state.arrivals += 1
            if state.shut { state.blocked += 1 }
            let arrivals = state.arrivals
            let ready = state.arrivalWaiters.filter { $0.count <= arrivals }.map(\.continuation)
            state.arrivalWaiters.removeAll { $0.count <= arrivals }
            return (state.shut, ready)
        }
        for waiter in ready { waiter.resume() }
        if mustWait { gate.wait() }
    }

    func rename(_ from: String, _ to: String) -> Int32 {
        let result = real.rename(from, to)
        if result == 0 && to.contains("/entries/") { state.withLock { $0.installs[to, default: 0] += 1 } }
        return result
    }
}
