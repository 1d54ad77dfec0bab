import CTroveSupport
import Crypto
import Foundation

/// Which source each thread is working on, kept where a crash cannot erase it: a file mapped into memory
/// (`TroveCrashJournal.c`), with a fatal-signal handler that marks the crashing thread's entry. Each process
/// keeps its own file, `<cache>/crash-journals/<pid>`, since several may share a cache directory. Opening
/// the journal reads the files of processes that are gone, then removes them: a source being decoded when a
/// trap killed its process is `crashed`; one in flight when a process was killed without a fatal signal
/// (SIGKILL, the kernel's OOM killer) is `interrupted`. Entering and leaving are memory writes only: no
/// system call. One journal is active per process, the last opened.
package final class CrashJournal: Sendable {
    /// What the processes that are gone left in their journals.
    package struct Recovered: Sendable, Equatable {
        /// The sources threads that died of a fatal signal were working on, with the signal.
        package var crashed: [(source: String, signal: Int32)] = []
        /// Sources other threads were working on when their process ended.
        package var interrupted: [String] = []

        package static func == (lhs: Recovered, rhs: Recovered) -> Bool {
            lhs.crashed.map(\.source) == rhs.crashed.map(\.source)
                && lhs.crashed.map(\.signal) == rhs.crashed.map(\.signal)
                && lhs.interrupted == rhs.interrupted
        }
    }

    /// Where the journals of a cache directory are.
    package static func folder(in directory: URL) -> URL {
        directory.appendingPathComponent("crash-journals", isDirectory: true)
    }

    /// What the journals of gone processes held when this journal opened.
    package let recovered: Recovered

    /// Reads and removes the journals gone processes left in `directory`, then maps this process's own.
    package init(directory: URL) throws {
        let folder = Self.folder(in: directory)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var recovered = Recovered()
        let me = getpid()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            guard let pid = Int32(name), pid != me, kill(pid, 0) != 0, errno == ESRCH else { continue }
            let file = folder.appendingPathComponent(name)
            if let data = try? Data(contentsOf: file) {
                let left = Self.parse(data)
                recovered.crashed += left.crashed
                recovered.interrupted += left.interrupted
            }
            try? FileManager.default.removeItem(at: file)
        }
        self.recovered = recovered
        let path = folder.appendingPathComponent(String(me)).path
        let status = trove_journal_open(path)
        guard status == 0 else {
            throw TroveError.ioFailed(
                path: path, reason: "cannot map the crash journal (\(String(cString: strerror(-status))))")
        }
    }

    /// How a source is named in the journal (and in the marks made from it): the source itself, or for one
    /// longer than an entry holds, its SHA-256.
    package static func name(of source: String) -> String {
        guard source.utf8.count > Int(TROVE_JOURNAL_NAME_BYTES) else { return source }
        return "sha256:" + SHA256.hash(data: Data(source.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Runs `body`, a synchronous step on `source` (decode, transforms, encode), with the source in this
    /// thread's journal entry.
    package func around<T>(_ source: String, _ body: () throws -> T) rethrows -> T {
        var name = Self.name(of: source)
        let slot = name.withUTF8 { trove_journal_enter($0.baseAddress, $0.count) }
        defer { trove_journal_leave(slot) }
        return try body()
    }

    /// Reads the file's layout (`TroveCrashJournal.h`); anything malformed reads as empty.
    package static func parse(_ data: Data) -> Recovered {
        guard data.count == trove_journal_file_size(), data.starts(with: Array("TRVJ".utf8)) else {
            return Recovered()
        }
        func int32(_ offset: Int) -> Int32 {
            data.withUnsafeBytes { Int32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: Int32.self)) }
        }
        let slotBytes = 1024, headerBytes = 64
        var recovered = Recovered()
        let crashedSlot = Int(int32(8)), signal = int32(12)
        for slot in 0..<Int(TROVE_JOURNAL_SLOTS) {
            let base = headerBytes + slot * slotBytes
            let length = Int(UInt32(bitPattern: int32(base + 4)))
            guard int32(base) != 0, length > 0, length <= Int(TROVE_JOURNAL_NAME_BYTES) else { continue }
            let name = String(decoding: data[(base + 8)..<(base + 8 + length)], as: UTF8.self)
            if slot == crashedSlot {
                recovered.crashed.append((name, signal))
            } else {
                recovered.interrupted.append(name)
            }
        }
        return recovered
    }
}
