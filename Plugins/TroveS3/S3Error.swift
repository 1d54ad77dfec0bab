import Foundation

/// Every failure the S3 client reports. Each message says what failed, where, and what to fix; none holds a
/// secret access key or a session token (anything a server sent back is scrubbed of them first).
package enum S3Error: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The server answered with an error status; `S3ServiceError` holds its S3 code and message.
    case service(S3ServiceError)
    /// No connection could be made to `endpoint`, or it was lost before an answer (refused, reset, timed out
    /// connecting); retried before it is reported.
    case connectionFailed(endpoint: String, reason: String)
    /// `operation` did not finish within its deadline of `after`, retries included.
    case deadlineExceeded(operation: String, after: Duration)
    /// The object is larger than the caller's limit of `limit` bytes; the download stopped once it passed it.
    case tooLarge(operation: String, limit: Int)
    /// No credentials could be found; the message says which variable, file or profile to set.
    case missingCredentials(String)
    /// A setting cannot work as given (an endpoint without a host, a part size below S3's minimum, ...).
    case invalidConfiguration(String)
    /// The server answered in a way S3 never does (a success without an upload ID, XML that does not parse).
    case unexpectedResponse(operation: String, detail: String)

    /// Whether trying again could help: 5xx, `SlowDown`, a socket timeout the server reported, and lost
    /// connections. Never an error in the request itself, a refused credential or a passed deadline.
    package var isRetryable: Bool {
        switch self {
        case let .service(error): error.isRetryable
        case .connectionFailed: true
        default: false
        }
    }

    /// One line for a person: what failed, where, and what to do.
    package var description: String {
        switch self {
        case let .service(error):
            error.description
        case let .connectionFailed(endpoint, reason):
            "could not reach S3 at \(endpoint): \(reason); check that the endpoint is right and the server is up"
        case let .deadlineExceeded(operation, after):
            "S3 \(operation) did not finish within its deadline of \(after), retries included; "
                + "raise the deadline or check the server"
        case let .tooLarge(operation, limit):
            "S3 \(operation) is larger than the limit of \(limit) bytes; raise the limit if the object is expected"
        case let .missingCredentials(reason):
            "no S3 credentials: \(reason)"
        case let .invalidConfiguration(reason):
            "invalid S3 configuration: \(reason)"
        case let .unexpectedResponse(operation, detail):
            "S3 \(operation) got an answer S3 does not give: \(detail)"
        }
    }

    /// The same as `description`, for `localizedDescription`.
    package var errorDescription: String? { description }
}

/// An error answer from S3: the HTTP status, S3's code and message, and what the request was about.
package struct S3ServiceError: Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status, e.g. 404.
    package var status: Int
    /// S3's error code (`NoSuchBucket`, `SignatureDoesNotMatch`, `SlowDown`, ...); empty when the answer had
    /// no body (HEAD).
    package var code: String
    /// S3's message, when it sent one.
    package var message: String
    /// The request's method and object, e.g. `PUT photos/a.png`.
    package var operation: String
    /// The bucket the request named.
    package var bucket: String
    /// The key the request named, nil for a request about the bucket.
    package var key: String?
    /// Where the request went, `scheme://host:port`.
    package var endpoint: String
    /// The request ID S3 gave, for its operators.
    package var requestID: String?

    /// An error answer from its parts.
    package init(
        status: Int, code: String, message: String, operation: String, bucket: String, key: String?,
        endpoint: String, requestID: String? = nil
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.operation = operation
        self.bucket = bucket
        self.key = key
        self.endpoint = endpoint
        self.requestID = requestID
    }

    /// 5xx, 429, and by code: `InternalError`, `SlowDown`, `ServiceUnavailable` (also when S3 reports them in a
    /// 200's body, as CompleteMultipartUpload may), `RequestTimeout` (the socket was idle) and a conditional
    /// write that raced another (`ConditionalRequestConflict`).
    package var isRetryable: Bool {
        status >= 500 || status == 429
            || ["SlowDown", "InternalError", "ServiceUnavailable", "RequestTimeout", "ConditionalRequestConflict"]
                .contains(code)
    }

    /// What went wrong and what to fix, by S3 code.
    package var description: String {
        let object = key.map { "\(bucket)/\($0)" } ?? bucket
        let said = message.isEmpty ? "" : " (\(message))"
        let prefix = "S3 \(operation) at \(endpoint) failed with \(status)\(code.isEmpty ? "" : " " + code): "
        switch code {
        case "NoSuchBucket":
            return "S3 \(operation) failed: bucket \(bucket) does not exist at endpoint \(endpoint); "
                + "create it or fix the bucket name"
        case "NoSuchKey":
            return "S3 \(operation) failed: \(object) does not exist at endpoint \(endpoint)"
        case "SignatureDoesNotMatch":
            return prefix + "the credentials were refused (the signature did not match); "
                + "check AWS_SECRET_ACCESS_KEY (and the region, if it is not the server's)"
        case "InvalidAccessKeyId":
            return prefix + "the credentials were refused (the access key is unknown); "
                + "check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
        case "ExpiredToken", "InvalidToken", "TokenRefreshRequired":
            return prefix + "the credentials were refused (the session token is invalid or expired); "
                + "renew AWS_SESSION_TOKEN (with its key and secret)"
        case "AccessDenied", "AllAccessDisabled":
            return prefix + "access to \(object) was denied\(said); check the identity's permissions on the bucket"
        case "RequestTimeTooSkewed":
            return prefix + "this machine's clock is too far from the server's; synchronise the clock"
        case "AuthorizationHeaderMalformed", "AuthorizationQueryParametersError":
            return prefix + "the request was signed for another region\(said); set the bucket's region"
        case "PermanentRedirect":
            return prefix + "the bucket lives at another endpoint\(said); set the bucket's region or endpoint"
        case "SlowDown", "ServiceUnavailable":
            return prefix + "the server asked to slow down; retried with backoff, try again later"
        case "EntityTooLarge", "EntityTooSmall":
            return prefix + "the object or a part of it has a size S3 refuses\(said)"
        case "" where status == 403:
            return prefix + "access to \(object) was refused; check the credentials (AWS_ACCESS_KEY_ID, "
                + "AWS_SECRET_ACCESS_KEY) and the identity's permissions on the bucket"
        default:
            return prefix + "\(object)\(said)"
                + (status >= 500 ? "; the server failed, try again later" : "")
        }
    }
}
