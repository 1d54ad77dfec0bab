import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real `redis-server` child process on 127.0.0.1 for one test, with nothing saved to disk.
public actor RedisTestServer {
    public nonisolated let port: Int
    public nonisolated let password: String?
    private let directory: URL
    private var process: Process?

    private init(port: Int, password: String?) {
        self.port = port
        self.password = password
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("trove-redis-\(port)-\(UUID().uuidString)")
    }

    /// Starts a server on a free port, retrying on a new port when another process took the one picked.
    public static func start(password: String? = nil) async throws -> RedisTestServer {
        var lastPort = 0
        for _ in 0..<8 {
            lastPort = try freeLoopbackPort()
            let server = RedisTestServer(port: lastPort, password: password)
            if try await server.launch() { return server }
            await server.stop()
        }
        throw TestServerError(description: "redis-server did not start (last port tried \(lastPort))")
    }

    /// `redis://[user:password@]127.0.0.1:port[/db]`.
    public nonisolated func url(user: String? = nil, password: String? = nil, database: Int? = nil) -> URL {
        var text = "redis://"
        if let password {
            text += (user ?? "") + ":" + password.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "@"
        }
        text += "127.0.0.1:\(port)"
        if let database { text += "/\(database)" }
        return URL(string: text)!
    }

    /// Launches redis-server on `port`; true once it answers PING, false if it exited (port taken).
    public func launch() async throws -> Bool {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var arguments = [
            "redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--daemonize", "no", "--dir", directory.path,
            "--logfile", directory.appendingPathComponent("redis.log").path
        ]
        if let password { arguments += ["--requirepass", password] }
        let (process, ready) = try await launchServerProcess(
            URL(fileURLWithPath: "/usr/bin/env"), arguments: arguments, name: "redis-server", port: port,
            readiness: "answer PING", isReady: { pingAnswers(port: port) })
        self.process = process
        return ready
    }

    /// The server's process id while it runs.
    public var processIdentifier: Int32? { process?.isRunning == true ? process?.processIdentifier : nil }

    /// Kills the server at once (SIGKILL), as a crash would, and waits for it to be gone.
    public func kill() async {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        await waitForExit(process)
    }

    /// Pauses (SIGSTOP) or resumes (SIGCONT) the server: connections stay open but nothing answers.
    public func pause(_ paused: Bool) {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, paused ? SIGSTOP : SIGCONT)
    }

    /// Starts the server again on the same port (after `kill`), retrying briefly while the port is released.
    public func restart() async throws {
        for _ in 0..<50 {
            if try await launch() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestServerError(description: "redis-server did not restart on port \(port)")
    }

    /// Stops the server and removes its directory. SIGKILL at once: the server keeps nothing on disk, and
    /// its orderly SIGTERM shutdown took seconds per test here.
    public func stop() async {
        if let process, process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            await waitForExit(process)
        }
        process = nil
        try? FileManager.default.removeItem(at: directory)
    }

    private func waitForExit(_ process: Process, bound: Duration = .seconds(10)) async {
        let deadline = ContinuousClock.now + bound
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}

public struct TestServerError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) { self.description = description }
}

/// Runs `body` with a fresh server and always stops the server afterwards, also when `body` throws.
public func withRedisServer<T: Sendable>(
    password: String? = nil,
    _ body: (RedisTestServer) async throws -> T
) async throws -> T {
    let server = try await RedisTestServer.start(password: password)
    return try await withCleanup {
        try await body(server)
    } finally: {
        await server.stop()
    }
}

/// A port the kernel just handed out on 127.0.0.1 (bound to port 0, read back, released).
public func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestServerError(description: "socket() failed") }
    defer { close(fd) }
    var address = loopback(port: 0)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw TestServerError(description: "bind() failed") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether something on 127.0.0.1:port answers an inline PING with a RESP reply (`+PONG`, or `-NOAUTH`
/// when a password is set). A plain socket, so the server check does not depend on the code under test.
public func pingAnswers(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 1, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = loopback(port: port)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { return false }
    let ping = Array("PING\r\n".utf8)
    guard send(fd, ping, ping.count, 0) == ping.count else { return false }
    var reply = [UInt8](repeating: 0, count: 64)
    let count = recv(fd, &reply, reply.count, 0)
    return count > 0 && (reply[0] == UInt8(ascii: "+") || reply[0] == UInt8(ascii: "-"))
}

private func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}
