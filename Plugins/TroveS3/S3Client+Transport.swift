import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

extension S3Client {
    /// Sends `request`, signed afresh for each attempt, and hands a successful (2xx) response to `handle`.
    /// An error status becomes `S3Error.service` with S3's code and message; transient failures (5xx,
    /// `SlowDown`, lost connections, a body `handle` found wrong in a retryable way) are retried with
    /// backoff while the wait ends before `deadline`. Errors `handle` throws as `DeliveryFailure` are not.
    func send<T: Sendable>(
        _ request: S3Request, deadline: ContinuousClock.Instant,
        handle: @escaping @Sendable (HTTPClientResponse) async throws -> T
    ) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await attemptOnce(request, deadline: deadline, handle: handle)
            } catch let failure as DeliveryFailure {
                throw failure.underlying
            } catch let error as S3Error where error.isRetryable {
                attempt += 1
                let delay = configuration.retry.delay(afterAttempt: attempt - 1, random: Double.random(in: 0...1))
                guard attempt < configuration.retry.maxAttempts, ContinuousClock.now + delay < deadline else {
                    throw error
                }
                logger.debug(
                    "S3 request failed; retrying",
                    metadata: [
                        "s3.operation": "\(request.operation)", "s3.error": "\(error)",
                        "s3.attempt": "\(attempt + 1)", "s3.delay": "\(delay)"
                    ])
                try await Task.sleep(for: delay)
            }
        }
    }

    private func attemptOnce<T: Sendable>(
        _ request: S3Request, deadline: ContinuousClock.Instant,
        handle: @Sendable (HTTPClientResponse) async throws -> T
    ) async throws -> T {
        let httpRequest = signed(request)
        let response: HTTPClientResponse
        do {
            // A second past the caller's: `withDeadline` around every public call reports the budget; this one
            // only keeps AsyncHTTPClient from waiting forever should a caller forget it.
            response = try await s3HTTPClient.execute(
                httpRequest, deadline: Self.nioDeadline(deadline + .seconds(1)))
        } catch let error as HTTPClientError where error == .deadlineExceeded {
            throw S3Error.deadlineExceeded(operation: request.operation, after: .zero)
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as HTTPClientError where error == .cancelled {
            throw CancellationError()
        } catch {
            throw S3Error.connectionFailed(
                endpoint: configuration.endpointText,
                reason: configuration.credentials.redacting(
                    TransportFailure.describe(error)))
        }
        guard (200..<300).contains(response.status.code) else {
            throw await serviceError(for: request, response: response)
        }
        return try await handle(response)
    }

    /// The AsyncHTTPClient request for `request`, signed as of `date`.
    func signed(_ request: S3Request, at date: Date = Date()) -> HTTPClientRequest {
        let (host, path) = configuration.target(key: request.key)
        let payload: SigV4Payload
        switch (configuration.payloadSigning, request.body) {
        case (_, nil): payload = .empty
        case (.unsigned, _?): payload = .unsigned
        case let (.signed, body?): payload = body.withUnsafeReadableBytes { .hashing($0) }
        }
        let sigV4 = SigV4Request(
            method: request.method.rawValue, path: path, query: request.query,
            headers: [SigV4Field("host", host)] + request.headers, payload: payload)
        let signature = signer.sign(sigV4, at: date)
        let query = sigV4.encodedQuery
        var httpRequest = HTTPClientRequest(
            url: "\(configuration.isTLS ? "https" : "http")://\(host)\(sigV4.encodedPath)"
                + (query.isEmpty ? "" : "?\(query)"))
        httpRequest.method = request.method
        for header in signature.headers { httpRequest.headers.add(name: header.name, value: header.value) }
        if let body = request.body {
            httpRequest.body = .bytes(body)
        }
        return httpRequest
    }

    /// The error an unsuccessful response stands for, with S3's code and message read from its XML body
    /// (at most 64 KiB of it), scrubbed of the credentials' secrets.
    private func serviceError(for request: S3Request, response: HTTPClientResponse) async -> S3Error {
        var body: [UInt8] = []
        if request.method != .HEAD {
            do {
                for try await chunk in response.body {
                    body += chunk.readableBytesView.prefix(65_536 - body.count)
                    if body.count >= 65_536 { break }
                }
            } catch {
                // A body cut short still leaves the status to report.
            }
        }
        let fields = S3ResponseXML.error(in: body)
        let redact = configuration.credentials.redacting
        return .service(
            S3ServiceError(
                status: Int(response.status.code),
                code: redact(fields?.code ?? Self.code(forStatus: response.status)),
                message: redact(fields?.message ?? ""), operation: request.operation,
                bucket: configuration.bucket, key: request.key, endpoint: configuration.endpointText,
                requestID: fields?.requestID ?? response.headers.first(name: "x-amz-request-id")))
    }

    /// The code S3 would have sent with a status, for answers without a body (HEAD).
    static func code(forStatus status: HTTPResponseStatus) -> String {
        switch status.code {
        case 412: "PreconditionFailed"
        case 503: "SlowDown"
        default: ""
        }
    }

    /// `instant` on NIO's clock.
    static func nioDeadline(_ instant: ContinuousClock.Instant) -> NIODeadline {
        .now() + .nanoseconds(max(0, (instant - .now).nanoseconds))
    }
}
