import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TroveCore

/// One GET through AsyncHTTPClient: sends the request, checks the status, streams and checks the body,
/// and turns every failure into the `TroveError` that names it.
struct HTTPExchange: Sendable {
    let client: HTTPClient
    let request: FetchRequest
    let outgoing: HTTPClientRequest
    let redirectLimit: Int
    let progress: @Sendable (FetchProgress) -> Void

    private var url: String { request.url.absoluteString }

    func run() async throws -> FetchOutcome {
        let response: HTTPClientResponse
        do {
            // The task group's timer is the real limit; this deadline only lets the client give up on its own.
            response = try await client.execute(outgoing, deadline: .now() + TimeAmount(request.timeout))
        } catch {
            throw requestError(error)
        }
        let metadata = Self.metadata(of: response, url: request.url)
        if response.status == .notModified { return .notModified(metadata) }
        guard (200..<300).contains(response.status.code) else { throw statusError(response) }
        if let expected = metadata.expectedLength, expected > request.maxBytes {
            throw TroveError.tooLarge(url: url, limit: request.maxBytes)
        }
        let body = try await readBody(response.body, expected: metadata.expectedLength)
        return .data(body, metadata)
    }

    private func readBody(_ stream: HTTPClientResponse.Body, expected: Int64?) async throws -> Data {
        var body = Data()
        if let expected { body.reserveCapacity(Int(expected)) }
        do {
            for try await chunk in stream {
                guard body.count + chunk.readableBytes <= request.maxBytes else {
                    throw TroveError.tooLarge(url: url, limit: request.maxBytes)
                }
                chunk.withUnsafeReadableBytes { body.append(contentsOf: $0) }
                progress(FetchProgress(received: Int64(body.count), expected: expected))
            }
        } catch let error as TroveError {
            throw error
        } catch {
            throw bodyError(error, received: Int64(body.count), expected: expected)
        }
        // Some cancellations end the stream quietly; a partial body must never pass as a whole one.
        if Task.isCancelled { throw TroveError.cancelled }
        if let expected, expected != Int64(body.count) {
            throw TroveError.lengthMismatch(url: url, expected: expected, received: Int64(body.count))
        }
        return body
    }

    // MARK: - Errors

    private func statusError(_ response: HTTPClientResponse) -> TroveError {
        let status = Int(response.status.code)
        if status == 429 || status >= 500,
           let retryAfter = response.headers.first(name: "retry-after").flatMap({ RetryAfter.parse($0) }) {
            return .serverBusy(status: status, url: url, retryAfter: retryAfter)
        }
        return .httpStatus(status, url: url)
    }

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

    static func metadata(of response: HTTPClientResponse, url: URL) -> ResponseMetadata {
        let headers = response.headers
        return ResponseMetadata(
            url: url,
            statusCode: Int(response.status.code),
            contentType: headers.first(name: "content-type"),
            validators: Validators(etag: headers.first(name: "etag"),
                                   lastModified: headers.first(name: "last-modified")),
            cacheControl: headers.first(name: "cache-control"),
            expectedLength: headers.first(name: "content-length").flatMap { Int64($0) })
    }
}
