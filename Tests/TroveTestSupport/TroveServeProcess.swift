import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A `trove serve` child process on a fixed loopback port, so it can be killed or stopped and started again
/// where a load balancer expects it. Its output is discarded, its standard error unless kept.
package actor TroveServeProcess {
    /// The loopback port it listens on.
    package nonisolated let port: Int
    private let arguments: [String]
    private let command: [String]
    private let executable: String
    private let environment: [String: String]?
    private let errorLog: URL?
    private var process: Process?

    /// A server that `start()` runs as `trove serve --port PORT` + `arguments`; `executable` names another
    /// product that takes `trove serve`'s flags itself (a test's own server). `environment` is added to the
    /// test process's own (credentials for a tier, say). `errorLog` keeps its standard error (its log).
    package init(
        port: Int, arguments: [String], executable: String = "trove", environment: [String: String] = [:],
        errorLog: URL? = nil
    ) {
        self.port = port
        self.errorLog = errorLog
        self.arguments = arguments
        self.executable = executable
        self.environment =
            environment.isEmpty
            ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 }
        command = executable == "trove" ? ["serve"] : []
    }

    /// Starts the server and waits until its `/health` answers 200; retries for a while when the port is
    /// still held (by the previous process's sockets, say).
    package func start() async throws {
        let binary = productsDirectory().appendingPathComponent(executable)
        for _ in 0..<20 {
            let port = port
            let (process, ready) = try await launchServerProcess(
                binary, arguments: command + ["--port", String(port)] + arguments, name: executable, port: port,
                readiness: "answer /health", environment: environment, errorLog: errorLog,
                isReady: { loopbackGet(port: port, path: "/health", timeout: 2)?.status == 200 })
            if ready {
                self.process = process
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestServerError(description: "trove serve did not start on port \(port)")
    }

    /// Sends `signal` (SIGKILL: a crash; SIGTERM: a drain) to the running server.
    package func signal(_ signal: Int32) {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, signal)
    }

    /// Waits up to `bound` for the server to exit and returns its exit status; nil if it is still running.
    package func waitForExit(within bound: Duration = .seconds(30)) async -> Int32? {
        guard let process else { return nil }
        let deadline = ContinuousClock.now + bound
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// Kills the server if it still runs and waits for it to be gone.
    package func stop() async {
        signal(SIGKILL)
        _ = await waitForExit(within: .seconds(10))
        process = nil
    }
}
