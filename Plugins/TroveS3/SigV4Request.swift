import Crypto
import Foundation

/// A request as SigV4 sees it, before signing: method, unencoded path and query, headers and how the body is
/// hashed. The signer encodes the path and query once, and the same encoded forms go on the wire, so what
/// is signed is what is sent.
package struct SigV4Request: Sendable, Equatable {
    /// The method, upper case: `GET`, `PUT`, ...
    package var method: String
    /// The path as the server should see it, not yet percent-encoded: `/bucket/photos/a b.png`. Encoded once
    /// (S3 does not double-encode) and never normalised: `//` and `.` segments are part of an S3 key.
    package var path: String
    /// Query parameters, not yet encoded: names and values as they are meant. An empty value is a bare
    /// flag (`?uploads` is signed as `uploads=`).
    package var query: [SigV4Field]
    /// Headers to sign and send; `host` must be among them. A name given twice is signed as one header
    /// whose values are joined with commas, in the order given.
    package var headers: [SigV4Field]
    /// How the body is represented in the signature.
    package var payload: SigV4Payload

    /// A request from its parts.
    package init(
        method: String, path: String, query: [SigV4Field] = [], headers: [SigV4Field], payload: SigV4Payload
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.payload = payload
    }

    /// The path as sent and signed: each byte outside RFC 3986's unreserved set and `/` percent-encoded.
    package var encodedPath: String {
        path.isEmpty ? "/" : SigV4Encoding.encode(path, keepingSlashes: true)
    }

    /// The query as sent and signed: names and values encoded, sorted by name then value, `name=value`
    /// pairs joined by `&`.
    package var encodedQuery: String {
        query.map { (SigV4Encoding.encode($0.name), SigV4Encoding.encode($0.value)) }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }
}

/// A name and a value: a header or a query parameter.
package struct SigV4Field: Sendable, Equatable {
    /// The name, as given (headers are lower-cased when signed).
    package var name: String
    /// The value, as given (header values are trimmed and their inner runs of spaces collapsed when signed).
    package var value: String

    /// A field from its name and value.
    package init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// How a request's body takes part in its signature.
package enum SigV4Payload: Sendable, Equatable {
    /// `UNSIGNED-PAYLOAD`: the body is not hashed, so it can stream without being read twice. TLS protects it
    /// in transit; S3 still checks the length.
    case unsigned
    /// The body's SHA-256 in lower-case hex: the server refuses a body that does not match.
    case sha256(String)

    /// The SHA-256 of `bytes`.
    package static func hashing(_ bytes: some DataProtocol) -> SigV4Payload {
        .sha256(SigV4Encoding.hex(SHA256.hash(data: bytes)))
    }

    /// The hash of an empty body.
    package static let empty = SigV4Payload.sha256("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")

    /// The last line of the canonical request and the value of `x-amz-content-sha256`.
    package var contentSHA256: String {
        switch self {
        case .unsigned: "UNSIGNED-PAYLOAD"
        case let .sha256(hex): hex
        }
    }
}
