import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import TroveCore

/// The client one hop of an exchange goes out on, and what to do once that hop is over (a client made for
/// the one hop, or kept in a pool, is handed back there).
struct HTTPHop: Sendable {
    let client: HTTPClient
    let finish: @Sendable () async -> Void

    /// A hop on a long-lived client: nothing to do afterwards.
    static func on(_ client: HTTPClient) -> HTTPHop { HTTPHop(client: client, finish: {}) }
}

/// One GET through AsyncHTTPClient: sends the request, lets a `ResponseCollector` check and gather the
/// response on the client's event loop, follows redirects, and turns every failure into the `TroveError`
/// that names it. The request's deadline, the same for every hop, is the client's deadline; the idle
/// timeout is the collector's (it fails the exchange when nothing arrives for that long).
///
/// `openHop` is asked for the client of each hop, the first and every redirect's, before anything is sent
/// to it: the plain fetcher hands back its one client, the guarded one checks the hop's addresses and
/// hands back a client pinned to a checked one (or throws).
///
/// With a cookie store, each hop sends the store's cookies for its own URL (after any `Cookie` header of
/// the request's own, which stays with the first origin like the credentials), and each response's
/// `Set-Cookie` headers go into the store before the next hop asks it.
///
/// With a `sink`, the final response's body goes there piece by piece as it arrives (see `FetchBodySink`)
/// and the outcome's data is empty; the length comes back beside it.
struct HTTPExchange: Sendable {
    let openHop: @Sendable (URL) async throws -> HTTPHop
    let request: FetchRequest
    let headers: HTTPHeaders
    let cookieStore: (any CookieStore)?
    let redirectLimit: Int
    let progress: @Sendable (FetchProgress) -> Void
    /// Where the body goes as it arrives; nil to collect it into the outcome.
    var sink: (any FetchBodySink)? = nil

    private var url: String { request.url.absoluteString }

    /// What an exchange ended with: the outcome (its data empty when a sink took the body) and the body's length.
    struct Finished: Sendable {
        let outcome: FetchOutcome
        let bodyLength: Int

        /// The outcome as a fetch into a sink reports it.
        var streamed: StreamedFetchOutcome {
            switch outcome {
            case let .data(_, metadata): .streamed(metadata, length: bodyLength)
            case let .notModified(metadata): .notModified(metadata)
            }
        }
    }

    func run() async throws -> Finished {
        // Without a request deadline, the idle timeout alone bounds the exchange; the client still needs one.
        let deadline = NIODeadline.now() + TimeAmount(request.deadline?.remaining ?? .seconds(24 * 3600))
        var hopURL = request.url
        var hopHeaders = headers
        var method = request.method
        var body = request.body
        var redirects = 0
        while true {
            let hop = try await openHop(hopURL)
            let result: Result<ResponseCollector.Result, any Error>
            do {
                result = .success(
                    try await send(
                        to: hopURL, method: method, body: body, on: hop.client,
                        headers: Self.adding(cookieStore?.cookieHeader(for: hopURL), to: hopHeaders),
                        deadline: deadline))
            } catch {
                result = .failure(error)
            }
            await hop.finish()
            switch try result.get() {
            case let .finished(outcome, bodyLength):
                return Finished(outcome: outcome, bodyLength: bodyLength)
            case let .redirected(target, status):
                redirects += 1
                // 303, and 301/302 after anything but GET or HEAD, turn into a GET without the body, as
                // browsers and RFC 9110 do; 307 and 308 repeat the method and body.
                if status == 303 || ((status == 301 || status == 302) && method != "GET" && method != "HEAD") {
                    if method != "HEAD" { method = "GET" }
                    body = nil
                    hopHeaders.remove(name: "Content-Type")
                    hopHeaders.remove(name: "Content-Length")
                }
                guard redirects <= redirectLimit else {
                    throw TroveError.tooManyRedirects(url: url, limit: redirectLimit)
                }
                // Credentials and cookies are for the origin they were given to, as browsers and AsyncHTTPClient do.
                if !Self.sameOrigin(hopURL, target) {
                    for name in ["Authorization", "Proxy-Authorization", "Cookie", "Origin"] {
                        hopHeaders.remove(name: name)
                    }
                }
                hopURL = target
            }
        }
    }

    /// One request and its response.
    private func send(
        to hopURL: URL, method: String, body: Data?, on client: HTTPClient, headers: HTTPHeaders,
        deadline: NIODeadline
    ) async throws -> ResponseCollector.Result {
        var outgoing: HTTPClient.Request
        do {
            outgoing = try HTTPClient.Request(
                url: hopURL.absoluteString, method: HTTPMethod(rawValue: method), headers: headers,
                body: body.map { .bytes($0) })
        } catch {
            throw requestError(error)
        }
        outgoing.apply(request.tls)
        if Task.isCancelled { throw TroveError.cancelled }
        let collector = ResponseCollector(
            request: request, hopURL: hopURL, cookieStore: cookieStore, sink: sink, progress: progress)
        // One loop for every call on this collector, so it is only ever called from one thread. The clients'
        // loops are AsyncHTTPClient's shared group, which never shuts down, so the start below always runs.
        let loop = client.eventLoopGroup.any()
        let sent = outgoing
        let started = StartedRequest()
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    // Started on its loop, the client's work to start a request (its deadline's timer, the
                    // pool's choice of a connection, the callback on its future) runs on the loop's thread;
                    // called from here, each of those calls woke that thread on its own.
                    loop.execute {
                        // Cancelled while this waited for the loop: no request, not one started and cancelled.
                        if started.isCancelled {
                            continuation.resume(throwing: TroveError.cancelled)
                            return
                        }
                        let task = client.execute(
                            request: sent, delegate: collector, eventLoop: .delegate(on: loop), deadline: deadline)
                        started.set(task)
                        task.futureResult.whenComplete { continuation.resume(with: $0) }
                    }
                }
            } onCancel: {
                started.cancel()
            }
        } catch let error as TroveError {
            throw error
        } catch {
            if Task.isCancelled { throw TroveError.cancelled }
            guard collector.head != nil else { throw requestError(error, hopURL: hopURL) }
            if collector.redirectTarget != nil {
                // The dropped body of a redirect: its length says nothing about the resource.
                throw TroveError.connectionFailed(
                    url: url, reason: "the connection was lost while reading a redirect (\(error))")
            }
            throw bodyError(error, received: collector.received, expected: collector.expectedLength)
        }
    }

    /// `headers` with the stored cookies after the `Cookie` header the request set itself, if any, in the one
    /// `Cookie` header RFC 6265 §5.4 allows.
    static func adding(_ storedCookies: String?, to headers: HTTPHeaders) -> HTTPHeaders {
        guard let storedCookies else { return headers }
        var headers = headers
        let own = headers["cookie"]
        headers.replaceOrAdd(name: "Cookie", value: (own + [storedCookies]).joined(separator: "; "))
        return headers
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80) }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && port(a) == port(b)
    }

    // MARK: - Errors

    private var deadlineError: TroveError {
        request.deadline.map { .deadlineExceeded(url: url, after: $0.budget) }
            ?? .timedOut(url: url, after: request.timeout)
    }

    /// The `TroveError` for a request that got no response; `hopURL` is where it went (the request's own
    /// URL unless given).
    private func requestError(_ error: any Error, hopURL: URL? = nil) -> TroveError {
        if let error = error as? TroveError { return error }
        if error is CancellationError { return .cancelled }
        if let reason = ConnectionFailure.certificateProblem(error) {
            return .untrustedCertificate(url: url, host: (hopURL ?? request.url).host ?? "?", reason: reason)
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded:
                return deadlineError
            case .readTimeout, .connectTimeout, .writeTimeout:
                return .timedOut(url: url, after: request.timeout)
            case .cancelled:
                return .cancelled
            case .redirectLimitReached, .redirectCycleDetected:
                return .tooManyRedirects(url: url, limit: redirectLimit)
            case .remoteConnectionClosed:
                return .connectionFailed(url: url, reason: "the server closed the connection before answering")
            case .invalidURL, .emptyHost, .emptyScheme:
                return .malformedURL(url: url, reason: "AsyncHTTPClient cannot use it (\(error))")
            default:
                return .connectionFailed(url: url, reason: "\(error)")
            }
        }
        return .connectionFailed(url: url, reason: ConnectionFailure.describe(error, url: request.url))
    }

    private func bodyError(_ error: any Error, received: Int64, expected: Int64?) -> TroveError {
        if error is CancellationError || (error as? HTTPClientError) == .cancelled { return .cancelled }
        if (error as? HTTPClientError) == .deadlineExceeded { return deadlineError }
        if (error as? HTTPClientError) == .readTimeout { return .timedOut(url: url, after: request.timeout) }
        if let expected, received < expected {
            // The origin announced a length, then closed before sending it all.
            return .lengthMismatch(url: url, expected: expected, received: received)
        }
        return .connectionFailed(
            url: url,
            reason: "the connection was lost after \(received) bytes of the body, "
                + "before it ended; the server cut it short (\(error))")
    }
}

/// A request started on its event loop, for a cancellation that may come before the loop has started it.
private final class StartedRequest: Sendable {
    private let state = Mutex<(task: HTTPClient.Task<ResponseCollector.Result>?, cancelled: Bool)>((nil, false))

    /// The request has started: cancelled at once if its caller already was.
    func set(_ task: HTTPClient.Task<ResponseCollector.Result>) {
        let cancelled = state.withLock { state -> Bool in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    /// Whether the caller has cancelled.
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Cancels the request, now or as soon as it has started.
    func cancel() {
        let task = state.withLock { state -> HTTPClient.Task<ResponseCollector.Result>? in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}
