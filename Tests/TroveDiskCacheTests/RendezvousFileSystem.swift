import Dispatch
import Foundation
import Synchronization

@testable import TroveDiskCache

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The real file system where, once armed, the first `parties` opens of entry files for reading wait for one
/// another after opening (each for at most `patience`): so that many lookups hold the same file, and read
/// it, before any of them acts on what it found.
final class RendezvousFileSystem: ForwardingFileSystem {
    private struct State {
        var parties = 0
        var arrived = 0
    }

    let real = PosixFileSystem()
    private let state = Mutex(State())
    private let gate = DispatchSemaphore(value: 0)
    private let patience: DispatchTimeInterval = .seconds(10)

    /// The next `parties` opens for reading meet.
    func arm(parties: Int) {
        state.withLock { $0 = State(parties: parties) }
    }

    /// Whether all the parties arrived (rather than some giving up waiting).
    var allMet: Bool {
        state.withLock { $0.parties > 0 && $0.arrived >= $0.parties }
    }

    func open(_ path: String, flags: Int32, mode: mode_t) -> Int32 {
        let fd = real.open(path, flags: flags, mode: mode)
        if fd >= 0 && flags & O_CREAT == 0 && path.contains("/entries/") { meet() }
        return fd
    }

    private func meet() {
        let (arrival, parties) = state.withLock { state -> (Int, Int) in
            state.arrived += 1
            return (state.arrived, state.parties)
        }
        guard arrival <= parties else { return }
        if arrival == parties {
            for _ in 1..<parties { gate.signal() }
        } else {
            _ = gate.wait(timeout: .now() + patience)
        }
    }
}
