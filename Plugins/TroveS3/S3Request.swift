import NIOCore
import NIOHTTP1

/// One S3 request before it is signed: what the transport needs to send it, sign it again on a retry, and
/// name it in messages.
struct S3Request: Sendable {
    /// The method.
    var method: HTTPMethod
    /// The object's key; nil for a request about the bucket.
    var key: String?
    /// Query parameters, unencoded (`uploadId`, `partNumber`, ...).
    var query: [SigV4Field] = []
    /// Headers besides Host and the signer's.
    var headers: [SigV4Field] = []
    /// The body; nil sends none. A ByteBuffer can be sent again on a retry.
    var body: ByteBuffer?

    /// `GET photos/a.png`, for messages and log lines.
    var operation: String {
        "\(method.rawValue) \(key ?? "(bucket)")"
    }
}

/// A failure inside the caller's handling of a response body that had started to arrive: never retried,
/// since the caller has seen part of the body. The transport unwraps it before it reaches the caller.
struct DeliveryFailure: Error {
    let underlying: any Error
}
