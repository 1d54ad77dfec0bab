import Foundation

/// Where `s3://bucket/key` sources are read from: the S3 endpoint, the region requests are signed for and
/// the addressing style. The bucket and key come from each source URL; the credentials from
/// `S3Credentials.resolve` (the AWS variables, else the shared credentials file).
///
/// Every part may be left out: without an endpoint, AWS's regional one; without a region, `AWS_REGION`, else
/// `AWS_DEFAULT_REGION`, else us-east-1; without an addressing style, path-style for a custom endpoint and
/// virtual-host for AWS (as the `s3://` shared tier chooses).
public struct S3SourceSettings: Sendable, Equatable {
    /// `http(s)://host[:port]` of the S3 service; nil for AWS's endpoint in `region`.
    public var endpoint: URL?
    /// The region requests are signed for; nil for the environment's (`AWS_REGION`, `AWS_DEFAULT_REGION`), else
    /// us-east-1.
    public var region: String?
    /// Path-style or virtual-host addressing; nil for path-style on a custom endpoint, virtual-host on AWS.
    public var addressing: S3Addressing?

    /// Settings from their parts; all nil (the defaults above) when none are given.
    public init(endpoint: URL? = nil, region: String? = nil, addressing: S3Addressing? = nil) {
        self.endpoint = endpoint
        self.region = region
        self.addressing = addressing
    }

    /// The settings `environment` gives: `TROVE_S3_ENDPOINT` and `TROVE_S3_REGION`, else imgproxy's
    /// `IMGPROXY_S3_ENDPOINT` and `IMGPROXY_S3_REGION`. Empty values count as unset. Throws an
    /// error naming the variable for an endpoint that is not a URL.
    public static func fromEnvironment(_ environment: [String: String]) throws -> S3SourceSettings {
        func value(_ names: String...) -> (name: String, value: String)? {
            for name in names {
                if let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
                    return (name, text)
                }
            }
            return nil
        }
        var settings = S3SourceSettings()
        if let (name, text) = value("TROVE_S3_ENDPOINT", "IMGPROXY_S3_ENDPOINT") {
            settings.endpoint = try endpoint(text, givenBy: name)
        }
        settings.region = value("TROVE_S3_REGION", "IMGPROXY_S3_REGION")?.value
        return settings
    }

    /// `text` as an endpoint URL, `http(s)://host[:port]`; an error naming `name` (a variable or a flag) when
    /// it is not one.
    package static func endpoint(_ text: String, givenBy name: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", url.host?.isEmpty == false
        else {
            throw S3Error.invalidConfiguration(
                "\(name) \(text) is not an S3 endpoint; give http(s)://host[:port], e.g. http://127.0.0.1:8333")
        }
        return url
    }

    /// The configuration of a client for `bucket` under these settings, signed with `credentials`; reads
    /// the default region from `environment`.
    func configuration(
        bucket: String, credentials: S3Credentials, environment: [String: String]
    ) throws -> S3Configuration {
        let region =
            region ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
        return try S3Configuration(
            endpoint: endpoint ?? S3Configuration.awsEndpoint(region: region), region: region, bucket: bucket,
            credentials: credentials, addressing: addressing ?? (endpoint == nil ? .virtualHost : .path),
            retry: .none)
    }
}
