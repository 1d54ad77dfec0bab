import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A real HTTP server on 127.0.0.1 (a port the OS picks) serving in-memory routes, including the faults a
/// client must survive (redirect chains, wrong lengths, cut connections, slow bodies, 429/503 with
/// Retry-After), with a request log that records headers so a test can prove what reached the origin.
/// Used by `trove demo` and the tests.
public final class FixtureServer: Sendable {
    private struct State {
        var routes: [String: Route] = [:]
        var log: [RecordedRequest] = []
        /// Requests answered per path since its route was set, for `.sequence`.
        var served: [String: Int] = [:]
        var inFlight = 0
        var peakInFlight = 0
    }

    private let state: Mutex<State>
    private let runner = Mutex<(Task<Void, any Error>, ServiceGroup)?>(nil)
    private let boundPort = Mutex<Int?>(nil)

    /// A server answering `routes` by path; `start()` binds it.
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

    /// Answers `path` with `route` from now on, its `.sequence` count started again.
    public func setRoute(_ path: String, _ route: Route) {
        state.withLock {
            $0.routes[path] = route
            $0.served[path] = nil
        }
    }

    /// Every request path received, in arrival order.
    public var requests: [String] { state.withLock { $0.log.map(\.path) } }

    /// Every request received, with its headers and body, in arrival order.
    public var requestLog: [RecordedRequest] { state.withLock { $0.log } }

    /// The requests received for one path, in arrival order.
    public func requestLog(for path: String) -> [RecordedRequest] {
        state.withLock { $0.log.filter { $0.path == path } }
    }

    /// How many requests were received for one path.
    public func requestCount(for path: String) -> Int {
        state.withLock { $0.log.count { $0.path == path } }
    }

    /// The most requests that were being answered at the same moment (a streamed body counts until its end).
    public var peakInFlight: Int { state.withLock { $0.peakInFlight } }

    /// The port it listens on; nil before `start()`.
    public var port: Int? { boundPort.withLock { $0 } }

    /// `path` (a query may follow it) on this server: 127.0.0.1 at `port`.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port ?? 0)\(path)")!
    }

    /// Starts listening and returns once the port is bound.
    @discardableResult
    public func start() async throws -> Int {
        let router = Router(context: ConnectionContext.self)
        router.get("**") { request, context in await self.respond(to: request, context) }
        // Other methods reach the same routes, which answer whatever was asked (`.echo` shows it).
        for method in [HTTPRequest.Method.post, .put, .head, .delete, .patch] {
            router.on("**", method: method) { request, context in await self.respond(to: request, context) }
        }
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
        // A service group, so `stop` can shut down gracefully: cancelling a running Hummingbird app can trip
        // NIO's "writer deinited without finish" trap on a connection that is still closing.
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task { try await group.run() }
        runner.withLock { $0 = (task, group) }
        for await port in ready {
            boundPort.withLock { $0 = port }
            return port
        }
        throw CancellationError()
    }

    /// Stops the server and waits until it has closed. Requests held at a gate are let go first.
    public func stop() async {
        for gate in state.withLock({ $0.routes.values.flatMap(\.gates) }) { gate.open() }
        guard
            let (task, group) = runner.withLock({ current -> (Task<Void, any Error>, ServiceGroup)? in
                defer { current = nil }
                return current
            })
        else { return }
        await group.triggerGracefulShutdown()
        _ = await task.result
    }

    // MARK: - Answering

    private func respond(to request: Request, _ context: ConnectionContext) async -> Response {
        var request = request
        let body = (try? await request.collectBody(upTo: 1 << 20)).map { Data($0.readableBytesView) } ?? Data()
        let path = request.uri.path
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.canonicalName
            headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
        }
        let recorded = RecordedRequest(
            method: request.method.rawValue, path: path, query: request.uri.query,
            headers: headers, body: body, clientPort: context.clientPort)
        let (route, index) = state.withLock { state -> (Route?, Int) in
            state.log.append(recorded)
            state.inFlight += 1
            state.peakInFlight = max(state.peakInFlight, state.inFlight)
            let index = state.served[path, default: 0]
            state.served[path] = index + 1
            return (state.routes[path], index)
        }
        guard let route else {
            requestEnded()
            return Self.plain(status: 404)
        }
        let (response, streams) = await answer(route, to: recorded, index: index)
        if !streams { requestEnded() }
        return response
    }

    private func requestEnded() {
        state.withLock { $0.inFlight -= 1 }
    }

    /// The response for `route`, and whether its body is streamed (the request ends when the stream does).
    private func answer(_ route: Route, to request: RecordedRequest, index: Int) async -> (Response, Bool) {
        switch route {
        case let .status(code):
            return (Self.plain(status: code), false)
        case .echo:
            let text = Data("\(request.method) ".utf8) + request.body
            return (Self.file(text, contentType: "text/plain", request: request), false)
        case let .file(data, contentType):
            return (Self.file(data, contentType: contentType, request: request), false)
        case let .delayed(data, contentType, delay):
            try? await Task.sleep(for: delay)
            return (Self.file(data, contentType: contentType, request: request), false)
        case let .gated(data, contentType, gate):
            await gate.pass()
            return (Self.file(data, contentType: contentType, request: request), false)
        case let .response(status, headers, body):
            var fields = HTTPFields()
            for (name, value) in headers {
                if let name = HTTPFields.Element.Name(name) { fields[name] = value }
            }
            fields[.contentLength] = String(body.count)
            return (
                Response(
                    status: .init(code: status), headers: fields,
                    body: .init(byteBuffer: ByteBuffer(bytes: body))), false
            )
        case let .redirect(location, status):
            return (redirect(to: location, status: status), false)
        case let .redirectChain(hops, target):
            let hop = Self.hopNumber(in: request.query)
            let location = hop + 1 < hops ? "\(request.path)?hop=\(hop + 1)" : target
            return (redirect(to: location, status: 302), false)
        case let .wrongLength(data, announced):
            let body = streamedBody { writer in
                try await writer.write(ByteBuffer(bytes: data))
                if announced > data.count { throw ConnectionCut() }
                try await writer.finish(nil)
            }
            return (
                Response(
                    status: .ok,
                    headers: [
                        .contentLength: String(announced),
                        .contentType: "application/octet-stream"
                    ], body: body), true
            )
        case let .cutMidBody(data, after):
            let body = streamedBody { writer in
                try await writer.write(ByteBuffer(bytes: data.prefix(max(0, after))))
                throw ConnectionCut()
            }
            return (Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: body), true)
        case let .slowBody(data, chunkSize, interval):
            let size = max(1, chunkSize)
            let body = streamedBody { writer in
                var offset = data.startIndex
                while offset < data.endIndex {
                    if offset > data.startIndex { try await Task.sleep(for: interval) }
                    let end = data.index(offset, offsetBy: size, limitedBy: data.endIndex) ?? data.endIndex
                    try await writer.write(ByteBuffer(bytes: data[offset..<end]))
                    offset = end
                }
                try await writer.finish(nil)
            }
            return (
                Response(
                    status: .ok,
                    headers: [
                        .contentLength: String(data.count),
                        .contentType: "application/octet-stream"
                    ], body: body), true
            )
        case let .pausedBody(data, pauseAfter, gate):
            let body = streamedBody { writer in
                let split = data.index(data.startIndex, offsetBy: min(max(0, pauseAfter), data.count))
                try await writer.write(ByteBuffer(bytes: data[..<split]))
                await gate.pass()
                try await writer.write(ByteBuffer(bytes: data[split...]))
                try await writer.finish(nil)
            }
            return (
                Response(
                    status: .ok,
                    headers: [
                        .contentLength: String(data.count),
                        .contentType: "application/octet-stream"
                    ], body: body), true
            )
        case let .conditional(data, contentType, lastModified):
            return (
                Self.conditional(data, contentType: contentType, lastModified: lastModified, request: request),
                false
            )
        case let .sequence(routes):
            guard let chosen = routes.isEmpty ? nil : routes[min(index, routes.count - 1)] else {
                return (Self.plain(status: 404), false)
            }
            return await answer(chosen, to: request, index: index)
        case let .basicAuth(user, password, inner):
            let expected = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
            guard request.header("authorization") == expected else {
                var response = Self.plain(status: 401)
                response.headers[.wwwAuthenticate] = "Basic realm=\"trove-fixtures\""
                return (response, false)
            }
            return await answer(inner, to: request, index: index)
        case let .withHeaders(headers, inner):
            var (response, streamed) = await answer(inner, to: request, index: index)
            for (name, value) in headers {
                if let name = HTTPFields.Element.Name(name) { response.headers[name] = value }
            }
            return (response, streamed)
        case let .settingCookies(cookies, inner):
            var (response, streamed) = await answer(inner, to: request, index: index)
            for cookie in cookies { response.headers.append(HTTPFields.Element(name: .setCookie, value: cookie)) }
            return (response, streamed)
        case let .withFieldLines(lines, inner):
            var (response, streamed) = await answer(inner, to: request, index: index)
            for (name, value) in lines {
                if let name = HTTPFields.Element.Name(name) {
                    response.headers.append(HTTPFields.Element(name: name, value: value))
                }
            }
            return (response, streamed)
        case let .negotiated(header, choices, otherwise):
            let sent = request.header(header.lowercased()) ?? ""
            let chosen = choices.first { sent.contains($0.containing) }?.route ?? otherwise
            var (response, streamed) = await answer(chosen, to: request, index: index)
            response.headers[.vary] = header
            return (response, streamed)
        }
    }

    /// A streamed body whose end (normal or not) also ends the request's in-flight count.
    private func streamedBody(_ write: @escaping @Sendable (inout any ResponseBodyWriter) async throws -> Void)
        -> ResponseBody
    {
        ResponseBody { writer in
            defer { self.requestEnded() }
            try await write(&writer)
        }
    }

    private func redirect(to location: String, status: Int) -> Response {
        let absolute = location.hasPrefix("/") ? url(location).absoluteString : location
        var response = Self.plain(status: status)
        response.headers[.location] = absolute
        return response
    }

    private static func hopNumber(in query: String?) -> Int {
        guard let query else { return 0 }
        for pair in query.split(separator: "&") where pair.hasPrefix("hop=") {
            return Int(pair.dropFirst(4)) ?? 0
        }
        return 0
    }

    private static func file(_ data: Data, contentType: String, request: RecordedRequest) -> Response {
        let etag = etag(for: data)
        var headers: HTTPFields = [
            .eTag: etag, .lastModified: "Mon, 02 Nov 2026 10:00:00 GMT",
            .contentType: contentType
        ]
        if request.header("if-none-match") == etag {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(data.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private static func conditional(
        _ data: Data, contentType: String, lastModified: Date,
        request: RecordedRequest
    ) -> Response {
        let etag = etag(for: data)
        var headers: HTTPFields = [.eTag: etag, .lastModified: httpDate(lastModified), .contentType: contentType]
        let unchanged: Bool
        if let tags = request.header("if-none-match") {
            unchanged =
                tags.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == etag }
                || tags.trimmingCharacters(in: .whitespaces) == "*"
        } else if let since = request.header("if-modified-since").flatMap(parseHTTPDate) {
            // HTTP dates have whole seconds.
            unchanged = lastModified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        } else {
            unchanged = false
        }
        if unchanged { return Response(status: .notModified, headers: headers) }
        headers[.contentLength] = String(data.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private static func plain(status: Int) -> Response {
        let text = "status \(status)\n"
        return Response(
            status: .init(code: status), headers: [.contentType: "text/plain"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// Thrown from a body writer to make the server drop the connection mid-response.
private struct ConnectionCut: Error {}
