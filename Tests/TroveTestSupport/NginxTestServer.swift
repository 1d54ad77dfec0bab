import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real `nginx` child process on 127.0.0.1 for one test: no daemon, no master process, its config, pid
/// file and logs in a temporary directory of its own (`-p`), serving one directory of files under several
/// URI prefixes, each prefix with its own response headers. Its access log records every request's method,
/// URI, status and conditional headers, so a test counts what reached the origin.
public actor NginxTestServer {
    /// One request as the access log recorded it.
    public struct LoggedRequest: Sendable, Equatable, CustomStringConvertible {
        /// `GET`, `HEAD`, ...
        public let method: String
        /// The request URI, query included.
        public let uri: String
        /// The status nginx answered with.
        public let status: Int
        /// The request's If-None-Match, nil when it sent none.
        public let ifNoneMatch: String?
        /// The request's If-Modified-Since, nil when it sent none.
        public let ifModifiedSince: String?

        /// Whether the request asked with validators (a revalidation).
        public var isConditional: Bool { ifNoneMatch != nil || ifModifiedSince != nil }

        /// `GET /a.png 200`, with the validators sent, as a failing expectation shows it.
        public var description: String {
            "\(method) \(uri) \(status)" + (ifNoneMatch.map { " If-None-Match: \($0)" } ?? "")
                + (ifModifiedSince.map { " If-Modified-Since: \($0)" } ?? "")
        }
    }

    /// The certificate and key an https server presents (PEM files).
    public struct Certificate: Sendable {
        /// The certificate chain, leaf first.
        public let chain: URL
        /// The leaf's private key.
        public let key: URL

        /// The chain and key in PEM files.
        public init(chain: URL, key: URL) {
            self.chain = chain
            self.key = key
        }

        /// Tests/Fixtures/tls/localhost.pem, signed by the test CA (`testCA`), for localhost and 127.0.0.1.
        public static let localhost = Certificate(
            chain: Fixtures.url("tls/localhost.pem"), key: Fixtures.url("tls/localhost.key"))

        /// Tests/Fixtures/tls/localhost-name-only.pem, signed by the test CA for the name localhost only: no
        /// IP address, so only the host name can match it.
        public static let localhostNameOnly = Certificate(
            chain: Fixtures.url("tls/localhost-name-only.pem"), key: Fixtures.url("tls/localhost-name-only.key"))

        /// Tests/Fixtures/tls/ca.pem, the test CA that no system trusts.
        public static let testCA = Fixtures.url("tls/ca.pem")
    }

    /// The loopback port nginx listens on.
    public nonisolated let port: Int
    /// The certificate the server answers https with; nil for plain http.
    public nonisolated let certificate: Certificate?
    /// The server's own directory: nginx.conf, nginx.pid, error.log, access.log.
    public nonisolated let directory: URL
    private var process: Process?
    /// The access log as it was when the server stopped (the directory is gone then).
    private var finalLog: [LoggedRequest]?

    private init(port: Int, certificate: Certificate?) {
        self.port = port
        self.certificate = certificate
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("trove-nginx-\(port)-\(UUID().uuidString)")
    }

    /// The nginx binary: Debian puts it in /usr/sbin, which a non-root PATH may lack.
    static var executable: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = path.split(separator: ":").map { "\($0)/nginx" } + ["/usr/sbin/nginx", "/usr/local/sbin/nginx"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map(URL.init(fileURLWithPath:))
    }

    /// Starts nginx on a free port serving the files of `root`: under each prefix of `locations` (e.g.
    /// `/max-age/`) the same files, with that prefix's headers added to every answer (304s included). A
    /// path under no prefix answers 404. With a `certificate` it speaks https only, presenting it. Retries on
    /// a new port when another process took the one picked.
    public static func start(
        serving root: URL, locations: [String: [String: String]], certificate: Certificate? = nil
    ) async throws -> NginxTestServer {
        guard let executable else {
            throw TestServerError(description: "nginx is not installed (scripts/setup.sh installs it)")
        }
        var lastError = ""
        for _ in 0..<8 {
            let server = NginxTestServer(port: try freeLoopbackPort(), certificate: certificate)
            do {
                let configuration = Self.configuration(
                    port: server.port, directory: server.directory, root: root, locations: locations,
                    certificate: certificate)
                if try await server.launch(executable, configuration: configuration) { return server }
                lastError = await server.errorLog()
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        }
        throw TestServerError(description: "nginx did not start; its error log says: \(lastError)")
    }

    /// Starts nginx on a free port as a load balancer in front of `upstreams` (loopback ports): each is
    /// taken out for `failTimeout` after one failure, and a request whose upstream refuses the connection,
    /// times out or answers 502, 503 or 504 goes to the next one, so a server that is killed or stops
    /// listening while draining costs no client a failed request. Its access log records the status each
    /// upstream gave (`upstreamStatus`), so a test sees which answers were retried.
    public static func startBalancer(upstreams: [Int], failTimeout: Duration = .seconds(2)) async throws
        -> NginxTestServer
    {
        guard let executable else {
            throw TestServerError(description: "nginx is not installed (scripts/setup.sh installs it)")
        }
        var lastError = ""
        for _ in 0..<8 {
            let server = NginxTestServer(port: try freeLoopbackPort(), certificate: nil)
            let configuration = Self.balancerConfiguration(
                port: server.port, directory: server.directory, upstreams: upstreams, failTimeout: failTimeout)
            do {
                if try await server.launch(executable, configuration: configuration) { return server }
                lastError = await server.errorLog()
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        }
        throw TestServerError(description: "nginx did not start as a balancer; its error log says: \(lastError)")
    }

    /// `http://127.0.0.1:port` + `path`; https when the server has a certificate.
    public nonisolated func url(_ path: String) -> URL {
        URL(string: "\(certificate == nil ? "http" : "https")://127.0.0.1:\(port)\(path)")!
    }

    /// The configuration the server runs with.
    static func configuration(
        port: Int, directory: URL, root: URL, locations: [String: [String: String]], certificate: Certificate? = nil
    ) -> String {
        func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        let rootPath = root.standardizedFileURL.path + "/"
        var servedLocations = ""
        for (prefix, headers) in locations.sorted(by: { $0.key < $1.key }) {
            servedLocations += "        location \(quoted(prefix)) {\n            alias \(quoted(rootPath));\n"
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
                servedLocations += "            add_header \(quoted(name)) \(quoted(value)) always;\n"
            }
            servedLocations += "        }\n"
        }
        let listen =
            certificate.map {
                """
                listen 127.0.0.1:\(port) ssl;
                        ssl_certificate \(quoted($0.chain.path));
                        ssl_certificate_key \(quoted($0.key.path));
                """
            } ?? "listen 127.0.0.1:\(port);"
        return preamble(directory: directory, connections: 64, logged: "$http_if_none_match\\t$http_if_modified_since")
            + """
                server {
                    \(listen)
                    server_name localhost;
                    location / { return 404; }
            \(servedLocations)    }
            }

            """
    }

    /// The balancer's configuration: one upstream group of `upstreams`, passive failure detection
    /// (`max_fails=1`), and retries on the next server for failures that happened before any answer reached
    /// the client. The access log's last fields are the upstream status(es) and address(es) tried.
    static func balancerConfiguration(port: Int, directory: URL, upstreams: [Int], failTimeout: Duration) -> String {
        let seconds = max(1, Int(failTimeout.components.seconds))
        let servers = upstreams.map { "        server 127.0.0.1:\($0) max_fails=1 fail_timeout=\(seconds)s;" }
            .joined(separator: "\n")
        return preamble(directory: directory, connections: 512, logged: "$upstream_status\\t$upstream_addr")
            + """
                upstream trove {
            \(servers)
                }
                server {
                    listen 127.0.0.1:\(port);
                    location / {
                        proxy_pass http://trove;
                        proxy_next_upstream error timeout http_502 http_503 http_504;
                        proxy_next_upstream_tries 0;
                        proxy_connect_timeout 1s;
                        proxy_read_timeout 60s;
                    }
                }
            }

            """
    }

    /// The process settings and the start of the `http` block, logging method, URI, status and `logged`.
    static func preamble(directory: URL, connections: Int, logged: String) -> String {
        func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        let temporary = directory.appendingPathComponent("tmp").path
        return """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(quoted(directory.appendingPathComponent("nginx.pid").path));
            error_log \(quoted(directory.appendingPathComponent("error.log").path)) info;
            events { worker_connections \(connections); }
            http {
                default_type application/octet-stream;
                types { image/png png; image/jpeg jpg; image/gif gif; image/webp webp; }
                log_format trove escape=none "$request_method\\t$request_uri\\t$status\\t\(logged)";
                access_log \(quoted(directory.appendingPathComponent("access.log").path)) trove;
                client_body_temp_path \(quoted(temporary + "/body"));
                proxy_temp_path \(quoted(temporary + "/proxy"));
                fastcgi_temp_path \(quoted(temporary + "/fastcgi"));
                uwsgi_temp_path \(quoted(temporary + "/uwsgi"));
                scgi_temp_path \(quoted(temporary + "/scgi"));

            """
    }

    /// Writes the configuration and runs nginx; true once it accepts connections, false if it exited (the
    /// port was taken meanwhile).
    private func launch(_ executable: URL, configuration: String) async throws -> Bool {
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("nginx.conf")
        try Data(configuration.utf8).write(to: config)
        // -e: nginx opens its compiled-in error log before reading the config; keep that one here too.
        // Ready once the port accepts; a bare connect is not logged as a request.
        let (process, ready) = try await launchServerProcess(
            executable,
            arguments: [
                "-p", directory.path + "/", "-c", config.path, "-e", directory.appendingPathComponent("error.log").path
            ],
            name: "nginx", port: port, readiness: "accept connections", isReady: { connects(port: port) })
        self.process = process
        return ready
    }

    /// Every request nginx answered so far, oldest first.
    public func requests() -> [LoggedRequest] {
        if let finalLog { return finalLog }
        return Self.parse(
            (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? "")
    }

    /// The requests answered so far once at least `count` are logged, or after `timeout` whatever is there:
    /// nginx writes a request's log line after sending its response, so a client that has just read an
    /// answer can be ahead of the log.
    public func requests(atLeast count: Int, timeout: Duration = .seconds(2)) async -> [LoggedRequest] {
        let end = ContinuousClock.now + timeout
        var logged = requests()
        while logged.count < count, ContinuousClock.now < end {
            try? await Task.sleep(for: .milliseconds(10))
            logged = requests()
        }
        return logged
    }

    /// Every access log line so far as its tab-separated fields: method, URI, status, then the two fields of
    /// the server's kind (a balancer's: the upstream statuses and addresses tried, comma-separated).
    public func accessLogFields() -> [[String]] {
        let log = (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// The requests for one URI.
    public func requests(for uri: String) -> [LoggedRequest] {
        requests().filter { $0.uri == uri }
    }

    /// Access log lines as written by the `trove` log format; nginx logs an absent header as `-`.
    static func parse(_ log: String) -> [LoggedRequest] {
        log.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 5, let status = Int(fields[2]) else { return nil }
            func header(_ value: String) -> String? { value == "-" || value.isEmpty ? nil : value }
            return LoggedRequest(
                method: fields[0], uri: fields[1], status: status, ifNoneMatch: header(fields[3]),
                ifModifiedSince: header(fields[4]))
        }
    }

    /// What nginx wrote to its error log (why it did not start, say).
    public func errorLog() -> String {
        (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
    }

    /// Stops nginx and waits for it to be gone, keeps the access log for `requests()`, and removes the
    /// directory. Safe to call twice. SIGKILL: a child started from the test's threads inherits their blocked
    /// signals, so nginx never sees a SIGTERM; it keeps nothing that a kill loses (the access log is written
    /// request by request).
    public func stop() async {
        if let process, process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            let deadline = ContinuousClock.now + .seconds(10)
            while process.isRunning, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        if finalLog == nil, process != nil { finalLog = requests() }
        process = nil
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Runs `body` with a started nginx (see `NginxTestServer.start`) and always stops it afterwards.
public func withNginxServer<T: Sendable>(
    serving root: URL, locations: [String: [String: String]], certificate: NginxTestServer.Certificate? = nil,
    _ body: (NginxTestServer) async throws -> T
) async throws -> T {
    let server = try await NginxTestServer.start(serving: root, locations: locations, certificate: certificate)
    return try await withCleanup {
        try await body(server)
    } finally: {
        await server.stop()
    }
}

/// Whether a TCP connection to 127.0.0.1:port is accepted (closed at once, nothing sent).
func connects(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}
