import Foundation
import Synchronization
import Testing
import TroveTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An executable product of this package, built beside the tests.
func helperExecutable(_ name: String) throws -> URL {
    let url = productsDirectory().appendingPathComponent(name)
    try #require(
        FileManager.default.isExecutableFile(atPath: url.path),
        "\(name) is not built at \(url.path); run `swift build --build-tests` before the tests")
    return url
}

/// Runs blocking work (waiting on a child process) on a dispatch thread, off the cooperative pool.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result(catching: work)) }
    }
}

/// What a finished child process printed and how it ended.
struct ProcessOutcome: Sendable {
    var status: Int32
    var reason: Process.TerminationReason
    /// What the child wrote to stdout, byte for byte.
    var output: Data
    var standardError: String

    var standardOutput: String { String(decoding: output, as: UTF8.self) }
}

/// Starts `executable` with `arguments`, stdout and stderr captured.
final class ChildProcess: Sendable {
    private let process: Process
    private let output = Pipe()
    private let errors = Pipe()

    init(_ executable: URL, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        self.process = process
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// Blocks until the child has printed a line (or closed its output); returns the line.
    func readLine() -> String {
        var line = Data()
        while let byte = Self.readByte(output.fileHandleForReading.fileDescriptor), byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// Reads with read(2), retrying on EINTR (FileHandle traps when a signal interrupts it); nil at the end.
    private static func readByte(_ fd: Int32) -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let got = read(fd, &byte, 1)
            if got == 1 { return byte }
            if got < 0 && errno == EINTR { continue }
            return nil
        }
    }

    private static func readToEnd(_ fd: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if got > 0 {
                data.append(contentsOf: buffer[0..<got])
            } else if got < 0 && errno == EINTR {
                continue
            } else {
                return data
            }
        }
    }

    /// Blocks until the child exits.
    func finish() -> ProcessOutcome {
        // stderr is drained on another thread so a child that fills one pipe cannot block on it.
        let errorsFD = errors.fileHandleForReading.fileDescriptor
        let err = Mutex(Data())
        let drained = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let bytes = Self.readToEnd(errorsFD)
            err.withLock { $0 = bytes }
            drained.signal()
        }
        let out = Self.readToEnd(output.fileHandleForReading.fileDescriptor)
        drained.wait()
        process.waitUntilExit()
        return ProcessOutcome(
            status: process.terminationStatus, reason: process.terminationReason,
            output: out,
            standardError: String(decoding: err.withLock { $0 }, as: UTF8.self))
    }
}
