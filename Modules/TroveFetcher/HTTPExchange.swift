import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TroveCore

/// One GET through AsyncHTTPClient: sends the request, lets a `ResponseCollector` check and gather the
/// response on the client's event loop, and turns every failure into the `TroveError` that names it.
/// The client's deadline covers the whole exchange, body and redirects included, so no timer task races it.
struct HTTPExchange: Sendable {
    let client: HTTPClient
    let request: FetchRequest
    let headers: HTTPHeaders
    let redirectLimit: Int
    let progress: @Sendable (FetchProgress) -> Void

    private var url: String { request.url.absoluteString }

    func run() async throws -> FetchOutcome {
        let outgoing: HTTPClient.Request
        do {
            outgoing = try HTTPClient.Request(url: url, method: .GET, headers: headers)
        } catch {
            throw requestError(error)
        }
        if Task.isCancelled { throw TroveError.cancelled }
        let collector = ResponseCollector(request: request, progress: progress)
        // One loop for every hop of the exchange, so the collector is only ever called from one thread.
        let loop = client.eventLoopGroup.any()
        let task = client.execute(request: outgoing, delegate: collector, eventLoop: .delegate(on: loop),
                                  deadline: .now() + TimeAmount(request.timeout))
        do {
            return try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
        } catch let error as TroveError {
            throw error
        } catch {
            if Task.isCancelled { throw TroveError.cancelled }
            guard collector.head != nil else { throw requestError(error) }
            throw bodyError(error, received: collector.received, expected: collector.expectedLength)
        }
    }

    // MARK: - Errors

    private func requestError(_ error: any Error) -> TroveError {
        if let error = error as? TroveError { return error }
        if error is CancellationError { return .cancelled }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout:
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
        if let error = error as? HTTPClientError,
           [.deadlineExceeded, .readTimeout].contains(error) {
            return .timedOut(url: url, after: request.timeout)
        }
        if let expected, received < expected {
            // The origin announced a length, then closed before sending it all.
            return .lengthMismatch(url: url, expected: expected, received: received)
        }
        return .connectionFailed(url: url, reason: "the connection was lost after \(received) bytes of the body, "
            + "before it ended; the server cut it short (\(error))")
    }
}
