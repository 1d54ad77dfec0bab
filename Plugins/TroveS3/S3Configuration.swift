import Foundation

/// Where a bucket is and how to reach it: the endpoint, region, bucket, addressing style and credentials,
/// and how uploads are split and retried.
///
/// `description` shows the endpoint, region, bucket and access key ID, never the secret or the token.
package struct S3Configuration: Sendable, Equatable, CustomStringConvertible {
    /// `scheme://host[:port]` of the S3 service: AWS's regional endpoint (`awsEndpoint(region:)`) or any
    /// S3-compatible server's, http or https, on any port.
    package private(set) var endpoint: URL
    /// The region requests are signed for, e.g. "us-east-1" (S3-compatible servers mostly accept any).
    package var region: String
    /// The bucket every key belongs to.
    package var bucket: String
    /// Whether the bucket goes in the path or in the host name.
    package var addressing: S3Addressing
    /// The keys requests are signed with.
    package var credentials: S3Credentials
    /// How bodies are signed: hashed (the default) or `UNSIGNED-PAYLOAD`.
    package var payloadSigning: S3PayloadSigning
    /// Bodies longer than this go up as a multipart upload (default 16 MiB).
    package var multipartThreshold: Int
    /// The size of each part of a multipart upload but the last (default 8 MiB; S3's minimum is 5 MiB).
    package var partSize: Int
    /// How failed requests are retried.
    package var retry: S3RetryPolicy

    /// S3's smallest part but the last: 5 MiB.
    package static let minimumPartSize = 5 << 20

    /// A configuration for `bucket` at `endpoint`. Throws `invalidConfiguration` for an endpoint that is not
    /// `http(s)://host[:port]` (a path, query or user there is refused), an empty bucket or region, or a part
    /// size below 5 MiB or above the threshold.
    package init(
        endpoint: URL, region: String, bucket: String, credentials: S3Credentials,
        addressing: S3Addressing = .path, payloadSigning: S3PayloadSigning = .signed,
        multipartThreshold: Int = 16 << 20, partSize: Int = 8 << 20, retry: S3RetryPolicy = S3RetryPolicy()
    ) throws {
        guard let components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else {
            throw S3Error.invalidConfiguration(
                "endpoint \(endpoint.absoluteString) is not http(s)://host[:port], e.g. https://s3.us-east-1.amazonaws.com"
            )
        }
        guard components.percentEncodedPath.isEmpty || components.percentEncodedPath == "/",
            components.query == nil, components.fragment == nil, components.user == nil
        else {
            throw S3Error.invalidConfiguration(
                "endpoint \(scheme)://\(host) must have no path, query or user part; give only http(s)://host[:port]")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw S3Error.invalidConfiguration("endpoint port \(port) is outside 1...65535")
        }
        guard !bucket.isEmpty, !bucket.contains("/") else {
            throw S3Error.invalidConfiguration("bucket name '\(bucket)' must be non-empty and without '/'")
        }
        guard !region.isEmpty else { throw S3Error.invalidConfiguration("region must not be empty") }
        guard partSize >= Self.minimumPartSize, partSize <= 5 << 30 else {
            throw S3Error.invalidConfiguration(
                "partSize \(partSize) is outside S3's 5 MiB...5 GiB; parts smaller than 5 MiB are refused")
        }
        guard multipartThreshold >= partSize else {
            throw S3Error.invalidConfiguration(
                "multipartThreshold \(multipartThreshold) is below partSize \(partSize); raise it to at least that")
        }
        var normalised = URLComponents()
        normalised.scheme = scheme
        normalised.host = host
        normalised.port = components.port
        self.endpoint = normalised.url ?? endpoint
        self.region = region
        self.bucket = bucket
        self.credentials = credentials
        self.addressing = addressing
        self.payloadSigning = payloadSigning
        self.multipartThreshold = multipartThreshold
        self.partSize = partSize
        self.retry = retry
    }

    /// AWS's endpoint for `region`: `https://s3.<region>.amazonaws.com`.
    package static func awsEndpoint(region: String) -> URL {
        URL(string: "https://s3.\(region).amazonaws.com")!
    }

    /// `s3 bucket at endpoint (region, path-style, key AKID...)`.
    package var description: String {
        "s3 bucket \(bucket) at \(endpointText) (\(region), \(addressing == .path ? "path" : "virtual-host")-style, "
            + "key \(credentials.accessKeyID))"
    }

    /// The endpoint as `scheme://host[:port]`, for messages.
    var endpointText: String {
        "\(isTLS ? "https" : "http")://\(hostHeader(bucketInHost: false))"
    }

    var isTLS: Bool { endpoint.scheme == "https" }

    /// The Host header: the endpoint's host (with the bucket in front for virtual-host addressing), and the
    /// port when it is not the scheme's default. An IPv6 address is bracketed.
    func hostHeader(bucketInHost: Bool) -> String {
        var host = endpoint.host ?? ""
        if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        if bucketInHost { host = "\(bucket).\(host)" }
        if let port = endpoint.port, port != (isTLS ? 443 : 80) { host += ":\(port)" }
        return host
    }

    /// The Host header and unencoded path for `key` (nil: the bucket itself) under the addressing style.
    func target(key: String?) -> (host: String, path: String) {
        switch addressing {
        case .path:
            (hostHeader(bucketInHost: false), "/\(bucket)" + (key.map { "/\($0)" } ?? ""))
        case .virtualHost:
            (hostHeader(bucketInHost: true), "/" + (key ?? ""))
        }
    }
}

/// Where a request names its bucket.
public enum S3Addressing: String, Sendable, Equatable, Codable {
    /// `https://endpoint/bucket/key`: what S3-compatible servers (SeaweedFS, MinIO) expect.
    case path
    /// `https://bucket.endpoint/key`: AWS's preferred style; needs DNS for every bucket name.
    case virtualHost
}

/// How a request body takes part in the signature.
package enum S3PayloadSigning: String, Sendable, Equatable, Codable {
    /// The body's SHA-256 is signed, so the server refuses a body changed in transit (read once more to hash).
    case signed
    /// `UNSIGNED-PAYLOAD`: nothing is hashed; use over https, where TLS protects the body.
    case unsigned
}
