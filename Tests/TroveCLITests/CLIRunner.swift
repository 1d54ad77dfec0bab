import Foundation

/// Runs the built `trove` binary as a user would, capturing stdout, stderr and the exit code.
struct CLIRunner {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String

        /// stdout parsed as one JSON object per line.
        var jsonLines: [[String: Any]] {
            stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
    }

    let cacheDirectory: URL

    /// `trove` sits next to the test bundle in the build products folder (`make test` builds every product first).
    static let binary: URL = {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("trove")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/trove")
    }()

    /// Runs the tool and waits for it on a dispatch thread: blocking a cooperative thread would starve the
    /// in-process fixture server the tool is talking to.
    func run(_ arguments: [String], in directory: URL? = nil) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Swift.Result { try self.runBlocking(arguments, in: directory) })
            }
        }
    }

    private func runBlocking(_ arguments: [String], in directory: URL?) throws -> Result {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["TROVE_CACHE_DIR"] = cacheDirectory.path
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read before waiting so a full pipe cannot block the child.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }
}

enum Fixtures {
    static let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/images")
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("trove-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
