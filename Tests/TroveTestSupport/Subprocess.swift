import Foundation

/// What a finished child process printed and how it exited.
public struct SubprocessResult: Sendable {
    public let status: Int32
    public let stdout: Data
    public let stderr: String
}

/// Runs a program to its end and returns what it printed. The waiting happens on a dispatch thread: a
/// test that blocked one of the cooperative pool's few threads on a child (a Python checker, the CLI)
/// would stall every other test's tasks, loopback servers included, for as long as the child runs.
public func runSubprocess(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
    in directory: URL? = nil
) async throws -> SubprocessResult {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(
                with: Result {
                    let process = Process()
                    process.executableURL = executable
                    process.arguments = arguments
                    if let environment { process.environment = environment }
                    if let directory { process.currentDirectoryURL = directory }
                    let out = Pipe(), err = Pipe()
                    process.standardOutput = out
                    process.standardError = err
                    try process.run()
                    // stderr drains on its own thread, so a child filling either pipe never blocks.
                    let errors = DispatchGroup()
                    nonisolated(unsafe) var stderr = Data()
                    DispatchQueue.global().async(group: errors) {
                        stderr = err.fileHandleForReading.readDataToEndOfFile()
                    }
                    let stdout = out.fileHandleForReading.readDataToEndOfFile()
                    errors.wait()
                    process.waitUntilExit()
                    return SubprocessResult(
                        status: process.terminationStatus, stdout: stdout,
                        stderr: String(decoding: stderr, as: UTF8.self))
                })
        }
    }
}
