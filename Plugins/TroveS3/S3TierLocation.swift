import Foundation
import TroveCore

/// What an `s3://bucket[/prefix][?endpoint=URL&region=R&addressing=path|virtual-host&max-value-bytes=N]` URL
/// says: the bucket, the key prefix, where and how to reach them, and the largest value stored. Without
/// `endpoint`, AWS's regional endpoint; without `region`, `AWS_REGION`, else `AWS_DEFAULT_REGION`, else
/// us-east-1; without `addressing`, path-style for a custom endpoint and virtual-host for AWS; without
/// `max-value-bytes`, the factory's default.
struct S3TierLocation: Equatable {
    var bucket: String
    /// The folder the values live under (no leading or trailing `/`); "trove" when the URL has no path.
    var prefix: String
    var endpoint: URL
    var region: String
    var addressing: S3Addressing
    /// The largest value stored, when the URL says.
    var maxValueBytes: Int?

    /// The expected form, for messages.
    static let form =
        "s3://bucket[/prefix][?endpoint=http(s)://host:port&region=R&addressing=path|virtual-host&max-value-bytes=N]"

    init(url: URL, environment: [String: String]) throws {
        func invalid(_ reason: String) -> TroveError {
            .invalidConfiguration("S3 tier URL \(url.absoluteString) \(reason); expected \(Self.form)")
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            components.scheme?.lowercased() == "s3"
        else { throw invalid("is not an s3:// URL") }
        guard let bucket = components.host, !bucket.isEmpty else { throw invalid("names no bucket") }
        guard components.user == nil, components.password == nil else {
            throw invalid("has credentials in it; give them in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY instead")
        }
        guard components.port == nil, components.fragment == nil else {
            throw invalid("has a port or fragment; give the server in ?endpoint=")
        }
        var settings: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard ["endpoint", "region", "addressing", "max-value-bytes"].contains(item.name), let value = item.value,
                !value.isEmpty
            else { throw invalid("has the unknown or empty setting '\(item.name)'") }
            settings[item.name] = value
        }
        let region = settings["region"] ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
        var endpoint = S3Configuration.awsEndpoint(region: region)
        if let text = settings["endpoint"] {
            guard let custom = URL(string: text) else { throw invalid("has an endpoint that is not a URL") }
            endpoint = custom
        }
        switch settings["addressing"] {
        case nil: addressing = settings["endpoint"] == nil ? .virtualHost : .path
        case "path": addressing = .path
        case "virtual-host": addressing = .virtualHost
        case let other?: throw invalid("has addressing '\(other)', not path or virtual-host")
        }
        if let text = settings["max-value-bytes"] {
            guard let bytes = Int(text), bytes >= 0 else {
                throw invalid("has max-value-bytes '\(text)', not a byte count")
            }
            maxValueBytes = bytes
        }
        let path = components.path.split(separator: "/").joined(separator: "/")
        self.bucket = bucket
        self.prefix = path.isEmpty ? "trove" : path
        self.endpoint = endpoint
        self.region = region
    }
}
