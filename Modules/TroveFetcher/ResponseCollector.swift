import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TroveCore

/// Receives one response from AsyncHTTPClient and checks it as it arrives: the status and announced length
/// at the head, the byte limit and progress with every body part, the length again at the end. The body is
/// collected, or with a `sink` handed on piece by piece and never kept.
///
/// Working on the client's event loop, with no task hop per body part, is what lets a fetch cost what a
/// bare GET costs. One collector serves one request (each redirect hop gets its own); the client calls it
/// on the one loop `HTTPExchange` names, and the owner reads its state only after the task's future has
/// completed, so the mutable state needs no lock.
final class ResponseCollector: HTTPClientResponseDelegate, @unchecked Sendable {
    /// A finished response, or where a redirect points (the exchange follows it).
    enum Result: Sendable {
        /// The outcome (its data empty when a sink took the body) and the body's length.
        case finished(FetchOutcome, bodyLength: Int)
        case redirected(to: URL, status: Int)
    }
    typealias Response = Result

    private let request: FetchRequest
    /// The URL of this hop (the request's own, or a redirect's target).
    private let hopURL: URL
    /// Where the response's `Set-Cookie` headers go; nil to ignore them.
    private let cookieStore: (any CookieStore)?
    private let progress: @Sendable (FetchProgress) -> Void
    /// Where the body goes as it arrives instead of into `body`; nil to collect it.
    private let sink: (any FetchBodySink)?
    private(set) var head: HTTPResponseHead?
    private var expected: Int64?
    private var body = Data()
    /// Body bytes accepted so far.
    private(set) var received: Int64 = 0
    /// Set when this response is a redirect the exchange will follow.
    private(set) var redirectTarget: URL?
    /// When something last happened (the request went out, the head or a body part came in).
    private var lastActivity = NIODeadline.now()
    /// Fires when the idle timeout may have passed; it checks `lastActivity` and re-arms if not.
    private var idleTimer: Scheduled<Void>?

    /// From Content-Length, once the head has arrived.
    var expectedLength: Int64? { expected }

    init(
        request: FetchRequest, hopURL: URL, cookieStore: (any CookieStore)?,
        sink: (any FetchBodySink)? = nil, progress: @escaping @Sendable (FetchProgress) -> Void
    ) {
        self.request = request
        self.hopURL = hopURL
        self.cookieStore = cookieStore
        self.sink = sink
        self.progress = progress
    }

    private static let redirectStatuses: Set<UInt> = [301, 302, 303, 307, 308]

    private var url: String { request.url.absoluteString }

    // MARK: Idle timeout

    /// The request is out: from now on, silence longer than the idle timeout fails the exchange.
    func didSendRequest(task: HTTPClient.Task<Result>) {
        lastActivity = .now()
        armIdleTimer(task: task, in: TimeAmount(request.timeout))
    }

    /// One variable written per event keeps the body path as cheap as it was; the timer does the checking.
    private func armIdleTimer(task: HTTPClient.Task<Result>, in delay: TimeAmount) {
        idleTimer = task.eventLoop.scheduleTask(in: delay) { [self] in
            let idle = TimeAmount(request.timeout)
            let quiet = NIODeadline.now() - lastActivity
            if quiet >= idle {
                task.fail(reason: TroveError.timedOut(url: url, after: request.timeout))
            } else {
                armIdleTimer(task: task, in: idle - quiet)
            }
        }
    }

    /// The exchange failed (the idle timer's own failure included): the timer has nothing left to watch.
    func didReceiveError(task: HTTPClient.Task<Result>, _ error: any Error) {
        idleTimer?.cancel()
    }

    // MARK: Response

    func didReceiveHead(task: HTTPClient.Task<Result>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        lastActivity = .now()
        self.head = head
        // Every response's cookies count, a redirect's or an error's too, as a browser keeps them.
        if let cookieStore {
            let setCookies = head.headers["set-cookie"]
            if !setCookies.isEmpty { cookieStore.storeCookies(fromSetCookieHeaders: setCookies, receivedFrom: hopURL) }
        }
        // A HEAD answer's Content-Length is the size a GET would get; its own body is empty.
        expected = request.method == "HEAD" ? nil : head.headers.first(name: "content-length").flatMap { Int64($0) }
        if head.status == .notModified { return task.eventLoop.makeSucceededVoidFuture() }
        if Self.redirectStatuses.contains(head.status.code), let location = head.headers.first(name: "location") {
            guard let target = URL(string: location, relativeTo: hopURL)?.absoluteURL,
                let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https"
            else {
                // Lasting, like a bad URL given directly: asking again would be sent to the same place.
                return task.eventLoop.makeFailedFuture(
                    TroveError.malformedURL(
                        url: url, reason: "it redirects to \"\(location)\", which is not an http or https URL"))
            }
            // Its body (a "moved" page) is read and dropped, so the connection can be used again.
            redirectTarget = target
            return task.eventLoop.makeSucceededVoidFuture()
        }
        guard (200..<300).contains(head.status.code) else {
            request.failedResponseObserver?(metadata(of: head))
            // Failing here ends the exchange without reading an error page nobody will use.
            return task.eventLoop.makeFailedFuture(statusError(head))
        }
        if let expected {
            guard expected <= request.maxBytes else {
                return task.eventLoop.makeFailedFuture(TroveError.tooLarge(url: url, limit: request.maxBytes))
            }
            if sink == nil { body.reserveCapacity(Int(expected)) }
        }
        if let sink {
            do {
                try sink.begin(metadata(of: head))
            } catch {
                return task.eventLoop.makeFailedFuture(error)
            }
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Result>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        lastActivity = .now()
        // A 304 or a redirect carries no body worth keeping.
        guard head?.status != .notModified, redirectTarget == nil else {
            return task.eventLoop.makeSucceededVoidFuture()
        }
        guard received + Int64(buffer.readableBytes) <= request.maxBytes else {
            return task.eventLoop.makeFailedFuture(TroveError.tooLarge(url: url, limit: request.maxBytes))
        }
        if let sink {
            do {
                try buffer.withUnsafeReadableBytes { try sink.write($0) }
            } catch {
                return task.eventLoop.makeFailedFuture(error)
            }
        } else {
            buffer.withUnsafeReadableBytes { body.append(contentsOf: $0) }
        }
        received += Int64(buffer.readableBytes)
        // A copy only when someone asked for the pieces (previews): the plain path stays as cheap as it was.
        if let observer = request.bodyObserver { observer(buffer.withUnsafeReadableBytes { Data($0) }) }
        progress(FetchProgress(received: received, expected: expected))
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Result>) throws -> Result {
        idleTimer?.cancel()
        guard let head else {
            throw TroveError.connectionFailed(url: url, reason: "the response ended without a status line")
        }
        // The status (301, 302, 303, 307, 308) decides whether a POST stays a POST on the next hop.
        if let redirectTarget { return .redirected(to: redirectTarget, status: Int(head.status.code)) }
        // Read again rather than kept from the head: the response counts as received when it ends.
        let metadata = metadata(of: head)
        if head.status == .notModified { return .finished(.notModified(metadata), bodyLength: 0) }
        if let expected, expected != received {
            throw TroveError.lengthMismatch(url: url, expected: expected, received: received)
        }
        return .finished(.data(body, metadata), bodyLength: Int(received))
    }

    private func metadata(of head: HTTPResponseHead) -> ResponseMetadata {
        let headers = head.headers
        let fields = headers.map { HeaderField(name: $0.name, value: $0.value) }
        return ResponseMetadata(
            url: request.url,
            statusCode: Int(head.status.code),
            contentType: headers.first(name: "content-type"),
            validators: Validators(
                etag: headers.first(name: "etag"),
                lastModified: headers.first(name: "last-modified")),
            cacheControl: headers.first(name: "cache-control"),
            expectedLength: expected,
            directives: CacheDirectives(fields: fields, receivedAt: Date()),
            headerFields: fields)
    }

    private func statusError(_ head: HTTPResponseHead) -> TroveError {
        let status = Int(head.status.code)
        if status == 429 || status >= 500,
            let retryAfter = head.headers.first(name: "retry-after").flatMap({ RetryAfter.parse($0) })
        {
            return .serverBusy(status: status, url: url, retryAfter: retryAfter)
        }
        return .httpStatus(status, url: url)
    }
}
