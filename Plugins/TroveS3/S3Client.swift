import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// A client for one S3 bucket on AsyncHTTPClient, signing every request with SigV4: GET (streamed, with a byte
/// limit), HEAD, PUT (optionally only if absent; multipart above a threshold), DELETE.
///
/// Every call takes a deadline that bounds it whole, retries and body included. Transient failures (5xx,
/// `SlowDown`, lost connections) are retried with jittered exponential backoff while the wait ends before
/// the deadline; what is left is thrown as an `S3Error` that says what to fix.
package struct S3Client: Sendable {
    /// The bucket, endpoint, credentials and upload settings.
    package let configuration: S3Configuration
    /// Retries and failures are logged here at debug level; never a secret.
    package let logger: Logger
    let signer: SigV4Signer

    /// A client for `configuration`'s bucket. Log lines go to `logger` (none by default).
    package init(configuration: S3Configuration, logger: Logger = S3Client.silentLogger) {
        self.configuration = configuration
        self.logger = logger
        self.signer = SigV4Signer(credentials: configuration.credentials, region: configuration.region)
    }

    /// A logger that drops everything.
    package static var silentLogger: Logger { Logger(label: "trove.s3", factory: { _ in SwiftLogNoOpLogHandler() }) }

    /// Streams the object at `key` to `body` piece by piece as it arrives, and returns its information once the
    /// whole body went through; nil when the bucket has no such key. Throws `S3Error.tooLarge` as soon as the
    /// announced or received length passes `maxBytes`. A failure before the first byte is retried; after it,
    /// it is thrown (`body` has seen part of the object), as is anything `body` throws.
    package func get(
        _ key: String, maxBytes: Int, deadline: ContinuousClock.Instant,
        body: @escaping @Sendable (ByteBuffer) async throws -> Void
    ) async throws -> S3ObjectInfo? {
        try await getObject(key, maxBytes: maxBytes, deadline: deadline) { info, response in
            var started = false
            var info = info
            info.size = try await read(response, operation: "GET \(key)", limit: maxBytes, info: info) { chunk in
                started = true
                do { try await body(chunk) } catch { throw DeliveryFailure(underlying: error) }
            } onTransportFailure: { error in
                if started { DeliveryFailure(underlying: error) } else { error }
            }
            return info
        }
    }

    /// The whole object at `key` in memory, nil when the bucket has no such key. Throws `S3Error.tooLarge`
    /// past `maxBytes`; a connection lost mid-body is retried from the start.
    package func getData(_ key: String, maxBytes: Int, deadline: ContinuousClock.Instant) async throws -> S3Object? {
        try await getObject(key, maxBytes: maxBytes, deadline: deadline) { info, response in
            var data = Data()
            data.reserveCapacity(info.size)
            var info = info
            info.size = try await read(response, operation: "GET \(key)", limit: maxBytes, info: info) { chunk in
                data.append(contentsOf: chunk.readableBytesView)
            } onTransportFailure: {
                $0
            }
            return S3Object(data: data, info: info)
        }
    }

    /// The information S3 keeps about `key`, nil when there is no such object. HEAD has no body, so a bucket
    /// that does not exist reads as a missing key here.
    package func head(_ key: String, deadline: ContinuousClock.Instant) async throws -> S3ObjectInfo? {
        let request = S3Request(method: .HEAD, key: key)
        return try await withDeadline(deadline, operation: request.operation) {
            do {
                return try await send(request, deadline: deadline) { Self.info(of: $0) }
            } catch let S3Error.service(error) where error.status == 404 {
                return nil
            }
        }
    }

    /// Removes `key`; removing a key that does not exist is not an error.
    package func delete(_ key: String, deadline: ContinuousClock.Instant) async throws {
        let request = S3Request(method: .DELETE, key: key)
        try await withDeadline(deadline, operation: request.operation) {
            do {
                _ = try await send(request, deadline: deadline) { _ in true }
            } catch let S3Error.service(error) where error.code == "NoSuchKey" {
                // Some servers answer 404 where S3 answers 204.
            }
        }
    }

    /// Stores `data` under `key`: one PUT up to `multipartThreshold` bytes, a multipart upload above it.
    /// With `options.onlyIfAbsent`, an existing object is left alone and the result is `alreadyExists`.
    package func put(
        _ key: String, data: Data, options: S3PutOptions = S3PutOptions(), deadline: ContinuousClock.Instant
    ) async throws -> S3PutResult {
        try await put(
            key, body: DataChunks(data: data, chunkSize: configuration.partSize), options: options,
            deadline: deadline)
    }

    /// Stores the bytes `body` produces under `key`, reading it once: it is held only up to
    /// `multipartThreshold` (one PUT when it ends by then), else uploaded part by part as the parts fill, at
    /// most two parts in flight. A failed multipart upload is aborted.
    package func put<Body: AsyncSequence & Sendable>(
        _ key: String, body: Body, options: S3PutOptions = S3PutOptions(), deadline: ContinuousClock.Instant
    ) async throws -> S3PutResult where Body.Element == ByteBuffer {
        try await withDeadline(deadline, operation: "PUT \(key)") {
            var source = body.makeAsyncIterator()
            var first = ByteBuffer()
            while first.readableBytes <= configuration.multipartThreshold, var chunk = try await source.next() {
                first.writeBuffer(&chunk)
            }
            guard first.readableBytes > configuration.multipartThreshold else {
                return try await putWhole(key, body: first, options: options, deadline: deadline)
            }
            return try await putMultipart(key, first: first, rest: &source, options: options, deadline: deadline)
        }
    }

    /// One PUT of `body`.
    func putWhole(_ key: String, body: ByteBuffer, options: S3PutOptions, deadline: ContinuousClock.Instant)
        async throws -> S3PutResult
    {
        var request = S3Request(method: .PUT, key: key, body: body)
        if let contentType = options.contentType { request.headers.append(SigV4Field("content-type", contentType)) }
        if options.onlyIfAbsent { request.headers.append(SigV4Field("if-none-match", "*")) }
        do {
            return try await send(request, deadline: deadline) { response in
                .stored(etag: response.headers.first(name: "etag"))
            }
        } catch let S3Error.service(error) where error.status == 412 && options.onlyIfAbsent {
            return .alreadyExists
        }
    }

    // MARK: - Reading

    /// GETs `key` and gives the response to `consume` with its information; nil on NoSuchKey.
    private func getObject<T: Sendable>(
        _ key: String, maxBytes: Int, deadline: ContinuousClock.Instant,
        consume: @escaping @Sendable (S3ObjectInfo, HTTPClientResponse) async throws -> T
    ) async throws -> T? {
        let request = S3Request(method: .GET, key: key)
        return try await withDeadline(deadline, operation: request.operation) {
            do {
                return try await send(request, deadline: deadline) { response in
                    let info = Self.info(of: response)
                    guard info.size <= maxBytes else {
                        throw S3Error.tooLarge(operation: request.operation, limit: maxBytes)
                    }
                    return try await consume(info, response)
                }
            } catch let S3Error.service(error) where error.code == "NoSuchKey" {
                return nil
            }
        }
    }

    /// Reads `response`'s body into `chunk`, stopping past `limit`, and returns its length; a transport failure
    /// or a body shorter than announced goes through `onTransportFailure` (which may mark it as not to be
    /// retried).
    private func read(
        _ response: HTTPClientResponse, operation: String, limit: Int, info: S3ObjectInfo,
        chunk: (ByteBuffer) async throws -> Void, onTransportFailure: (S3Error) -> any Error
    ) async throws -> Int {
        var received = 0
        var iterator = response.body.makeAsyncIterator()
        while true {
            let next: ByteBuffer?
            do {
                next = try await iterator.next()
            } catch {
                throw onTransportFailure(
                    .connectionFailed(
                        endpoint: configuration.endpointText,
                        reason: "the body was cut short: \(TransportFailure.describe(error))"))
            }
            guard let buffer = next else { break }
            received += buffer.readableBytes
            if received > limit { throw S3Error.tooLarge(operation: operation, limit: limit) }
            try await chunk(buffer)
        }
        if received != info.size, response.headers.first(name: "content-length") != nil {
            throw onTransportFailure(
                .connectionFailed(
                    endpoint: configuration.endpointText,
                    reason: "the body ended after \(received) of \(info.size) bytes"))
        }
        return received
    }

    /// The length and headers of a GET or HEAD answer.
    static func info(of response: HTTPClientResponse) -> S3ObjectInfo {
        S3ObjectInfo(
            size: response.headers.first(name: "content-length").flatMap { Int($0) } ?? 0,
            etag: response.headers.first(name: "etag"), contentType: response.headers.first(name: "content-type"),
            lastModified: response.headers.first(name: "last-modified"))
    }
}
