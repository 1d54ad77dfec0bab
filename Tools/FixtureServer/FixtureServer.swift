import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A real HTTP server on 127.0.0.1 (a port the OS picks) serving in-memory files, with the request log a
/// test or the demo needs to prove what reached the origin. Used by `trove demo` and the integration tests.
public final class FixtureServer: Sendable {
    /// What the server answers for one path.
    public enum Route: Sendable {
        /// 200 with the bytes, an ETag and a Last-Modified; a matching If-None-Match gets 304.
        case file(Data, contentType: String)
        /// A bare status with a short text body.
        case status(Int)
        /// The same as `file`, after a delay.
        case delayed(Data, contentType: String, delay: Duration)
    }

    private struct State {
        var routes: [String: Route] = [:]
        var requests: [String] = []
    }

    private let state: Mutex<State>
    private let runner = Mutex<Task<Void, any Error>?>(nil)
    private let boundPort = Mutex<Int?>(nil)

    public init(routes: [String: Route] = [:]) {
        state = Mutex(State(routes: routes))
    }

    /// Serves every regular file in `directory` under `prefix` + its name, typed by its extension.
    public convenience init(serving directory: URL, under prefix: String = "/") throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        var routes: [String: Route] = [:]
        for name in names {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            routes[prefix + name] = .file(data, contentType: Self.contentType(forName: name))
        }
        self.init(routes: routes)
    }

    public func setRoute(_ path: String, _ route: Route) {
        state.withLock { $0.routes[path] = route }
    }

    /// Every request path received, in arrival order.
    public var requests: [String] { state.withLock { $0.requests } }

    public func requestCount(for path: String) -> Int {
        state.withLock { $0.requests.filter { $0 == path }.count }
    }

    public var port: Int? { boundPort.withLock { $0 } }

    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port ?? 0)\(path)")!
    }

    /// Starts listening and returns once the port is bound.
    @discardableResult
    public func start() async throws -> Int {
        let router = Router()
        router.get("**") { request, _ in await self.respond(to: request) }
        var logger = Logger(label: "trove.fixture-server")
        logger.logLevel = .critical
        let (ready, readyContinuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "trove-fixtures"),
            onServerRunning: { channel in
                readyContinuation.yield(channel.localAddress?.port ?? 0)
                readyContinuation.finish()
            },
            logger: logger)
        let task = Task { try await app.run() }
        runner.withLock { $0 = task }
        for await port in ready {
            boundPort.withLock { $0 = port }
            return port
        }
        throw CancellationError()
    }

    /// Stops the server and waits until it has closed.
    public func stop() async {
        let task = runner.withLock { current -> Task<Void, any Error>? in
            defer { current = nil }
            return current
        }
        task?.cancel()
        _ = await task?.result
    }

    private func respond(to request: Request) async -> Response {
        let path = request.uri.path
        let route = state.withLock { state -> Route? in
            state.requests.append(path)
            return state.routes[path]
        }
        switch route {
        case nil:
            return Self.plain(status: 404)
        case let .status(code):
            return Self.plain(status: code)
        case let .file(data, contentType):
            return Self.file(data, contentType: contentType, request: request)
        case let .delayed(data, contentType, delay):
            try? await Task.sleep(for: delay)
            return Self.file(data, contentType: contentType, request: request)
        }
    }

    private static func file(_ data: Data, contentType: String, request: Request) -> Response {
        let etag = "\"\(String(UInt32(truncatingIfNeeded: data.hashValueStable), radix: 16))-\(data.count)\""
        let lastModified = "Mon, 02 Nov 2026 10:00:00 GMT"
        var headers: HTTPFields = [.eTag: etag, .lastModified: lastModified, .contentType: contentType]
        if request.headers[.ifNoneMatch] == etag {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(data.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private static func plain(status: Int) -> Response {
        let text = "status \(status)\n"
        return Response(status: .init(code: status), headers: [.contentType: "text/plain"],
                        body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func contentType(forName name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }
}

private extension Data {
    /// FNV-1a over the bytes: a content hash that is stable across runs (Swift's hashValue is seeded).
    var hashValueStable: UInt64 {
        reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}
