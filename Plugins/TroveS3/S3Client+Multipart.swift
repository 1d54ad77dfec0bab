import AsyncHTTPClient
import NIOCore
import NIOHTTP1

extension S3Client {
    /// Uploads `first` and then the rest of `rest` as a multipart upload: CreateMultipartUpload, parts of
    /// `partSize` bytes uploaded as they fill (two at a time), CompleteMultipartUpload (with `If-None-Match: *`
    /// when only absent keys may be written). Any failure aborts the upload, so no parts are left behind.
    /// With `onlyIfAbsent`, a HEAD first spares uploading to a taken key unless `checksFirst` is false.
    func putMultipart<Source: AsyncIteratorProtocol>(
        _ key: String, first: ByteBuffer, rest: inout Source, options: S3PutOptions,
        deadline: ContinuousClock.Instant, checksFirst: Bool = true
    ) async throws -> S3PutResult where Source.Element == ByteBuffer {
        if options.onlyIfAbsent, checksFirst, try await existsAlready(key, deadline: deadline) {
            return .alreadyExists
        }
        let uploadID = try await createMultipartUpload(key, options: options, deadline: deadline)
        do {
            let etags = try await uploadParts(key, uploadID: uploadID, first: first, rest: &rest, deadline: deadline)
            return try await completeMultipartUpload(
                key, uploadID: uploadID, etags: etags, options: options, deadline: deadline)
        } catch {
            await abortMultipartUpload(key, uploadID: uploadID, reason: error)
            if case let S3Error.service(failure) = error, failure.status == 412, options.onlyIfAbsent {
                return .alreadyExists
            }
            throw error
        }
    }

    /// Whether `key` has an object: checked before a multipart upload with `onlyIfAbsent`, so a taken key is
    /// not uploaded for nothing (the completion's own `If-None-Match` still decides a race).
    private func existsAlready(_ key: String, deadline: ContinuousClock.Instant) async throws -> Bool {
        do {
            return try await send(S3Request(method: .HEAD, key: key), deadline: deadline) { _ in true }
        } catch let S3Error.service(error) where error.status == 404 {
            return false
        }
    }

    private func createMultipartUpload(_ key: String, options: S3PutOptions, deadline: ContinuousClock.Instant)
        async throws -> String
    {
        var request = S3Request(method: .POST, key: key, query: [SigV4Field("uploads", "")])
        if let contentType = options.contentType { request.headers.append(SigV4Field("content-type", contentType)) }
        return try await send(request, deadline: deadline) { response in
            let body = try await self.smallBody(of: response)
            guard let uploadID = S3ResponseXML.field("UploadId", of: "InitiateMultipartUploadResult", in: body),
                !uploadID.isEmpty
            else {
                throw S3Error.unexpectedResponse(
                    operation: "POST \(key)?uploads", detail: "no UploadId in \(body.count) bytes of answer")
            }
            return uploadID
        }
    }

    /// Reads `rest` into parts and uploads each as soon as it is full, keeping at most two in flight; returns
    /// the parts' ETags in order.
    private func uploadParts<Source: AsyncIteratorProtocol>(
        _ key: String, uploadID: String, first: ByteBuffer, rest: inout Source, deadline: ContinuousClock.Instant
    ) async throws -> [String] where Source.Element == ByteBuffer {
        let partSize = configuration.partSize
        var pending = first
        var etags: [Int: String] = [:]
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            var number = 0
            var inFlight = 0
            var exhausted = false
            while !exhausted || pending.readableBytes > 0 {
                while !exhausted, pending.readableBytes < partSize {
                    if var chunk = try await rest.next() { pending.writeBuffer(&chunk) } else { exhausted = true }
                }
                // A full part, or whatever is left at the end (an empty body after the first part sends none).
                let length = min(partSize, pending.readableBytes)
                guard length > 0 else { break }
                let part = pending.readSlice(length: length)!
                pending.discardReadBytes()
                number += 1
                if inFlight == 2, let (done, etag) = try await group.next() {
                    etags[done] = etag
                    inFlight -= 1
                }
                let partNumber = number
                group.addTask {
                    (
                        partNumber,
                        try await self.uploadPart(
                            key, uploadID: uploadID, number: partNumber, body: part,
                            deadline: deadline)
                    )
                }
                inFlight += 1
            }
            for try await (done, etag) in group { etags[done] = etag }
        }
        return (1...etags.count).map { etags[$0]! }
    }

    private func uploadPart(
        _ key: String, uploadID: String, number: Int, body: ByteBuffer, deadline: ContinuousClock.Instant
    ) async throws -> String {
        let request = S3Request(
            method: .PUT, key: key,
            query: [SigV4Field("partNumber", String(number)), SigV4Field("uploadId", uploadID)], body: body)
        return try await send(request, deadline: deadline) { response in
            guard let etag = response.headers.first(name: "etag") else {
                throw S3Error.unexpectedResponse(operation: request.operation, detail: "part \(number) has no ETag")
            }
            return etag
        }
    }

    private func completeMultipartUpload(
        _ key: String, uploadID: String, etags: [String], options: S3PutOptions, deadline: ContinuousClock.Instant
    ) async throws -> S3PutResult {
        let document = S3ResponseXML.completeMultipartUpload(
            parts: etags.enumerated().map { ($0.offset + 1, $0.element) })
        var headers = [SigV4Field("content-type", "application/xml")]
        if options.onlyIfAbsent { headers.append(SigV4Field("if-none-match", "*")) }
        let request = S3Request(
            method: .POST, key: key, query: [SigV4Field("uploadId", uploadID)], headers: headers,
            body: ByteBuffer(string: document))
        let endpoint = configuration.endpointText
        let bucket = configuration.bucket
        let redact = configuration.credentials.redacting
        return try await send(request, deadline: deadline) { response in
            // S3 may answer 200 and still report a failure in the body, once it has finished assembling.
            let body = try await self.smallBody(of: response)
            if let failure = S3ResponseXML.error(in: body) {
                throw S3Error.service(
                    S3ServiceError(
                        status: Int(response.status.code), code: redact(failure.code), message: redact(failure.message),
                        operation: request.operation, bucket: bucket, key: key, endpoint: endpoint,
                        requestID: failure.requestID))
            }
            return .stored(
                etag: S3ResponseXML.field("ETag", of: "CompleteMultipartUploadResult", in: body)
                    ?? response.headers.first(name: "etag"))
        }
    }

    /// Aborts the upload so its parts are freed. Best effort with its own 10 s bound: the caller is told of
    /// the failure that made it abort, not of the abort's. When the upload is being abandoned because the task
    /// was cancelled (its deadline passed), the abort runs on without holding the caller up.
    private func abortMultipartUpload(_ key: String, uploadID: String, reason: any Error) async {
        let request = S3Request(method: .DELETE, key: key, query: [SigV4Field("uploadId", uploadID)])
        let abort = Task {
            let deadline = ContinuousClock.now + .seconds(10)
            do {
                _ = try await withDeadline(deadline, operation: request.operation) {
                    try await self.send(request, deadline: deadline) { _ in true }
                }
            } catch {
                logger.debug(
                    "S3 multipart upload could not be aborted",
                    metadata: ["s3.operation": "\(request.operation)", "s3.error": "\(error)"])
            }
        }
        logger.debug(
            "S3 multipart upload failed; aborting it",
            metadata: ["s3.operation": "\(request.operation)", "s3.error": "\(reason)"])
        if !Task.isCancelled { await abort.value }
    }

    /// The body of a small answer (an XML document), at most 1 MiB.
    func smallBody(of response: HTTPClientResponse) async throws -> [UInt8] {
        do {
            let buffer = try await response.body.collect(upTo: 1 << 20)
            return Array(buffer.readableBytesView)
        } catch {
            throw S3Error.connectionFailed(
                endpoint: configuration.endpointText,
                reason: "the answer's body could not be read: \(TransportFailure.describe(error))")
        }
    }
}
