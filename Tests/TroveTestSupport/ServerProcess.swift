import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starts a real server (nginx, redis-server) for a test, its output discarded, and waits up to 10 s until
/// `isReady` says it serves. Returns the process and true once ready, or false if it exited first (its
/// port was taken meanwhile, so the caller can try another); throws when it is still not ready after
/// 10 s, naming what `readiness` says it should have done ("answer PING"), after killing it. `environment`
/// replaces the test process's own when given; `errorLog` keeps its standard error.
public func launchServerProcess(
    _ executable: URL, arguments: [String], name: String, port: Int, readiness: String,
    environment: [String: String]? = nil, errorLog: URL? = nil, isReady: @Sendable () -> Bool
) async throws -> (process: Process, ready: Bool) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    if let errorLog {
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errorLog)
    }
    try process.run()
    for _ in 0..<1000 {
        if !process.isRunning { return (process, false) }
        if isReady() { return (process, true) }
        try await Task.sleep(for: .milliseconds(10))
    }
    // SIGKILL: a child started from a test's thread may inherit SIGTERM blocked (nginx never saw it).
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    throw TestServerError(description: "\(name) on port \(port) did not \(readiness) within 10 s")
}
