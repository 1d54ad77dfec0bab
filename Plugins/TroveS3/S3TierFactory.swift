import Foundation
import TroveCore

/// Makes `S3SharedTier`s for `s3://bucket[/prefix][?endpoint=URL&region=R&addressing=path|virtual-host]` URLs,
/// with credentials from the environment or the shared credentials file (`S3Credentials.resolve`).
///
/// S3 keeps no value in memory and has no size limit worth the name, so `SharedTierOptions.maxValueBytes`
/// (Redis's 8 MiB) is not its limit: an S3 tier stores values up to `defaultMaxValueBytes`, or what the URL's
/// `max-value-bytes=N` says. Stacked below Redis, a value too large for Redis is kept in S3 alone.
package struct S3TierFactory: SharedCacheTierFactory {
    /// "s3".
    package let name = "s3"
    /// ["s3"].
    package let schemes: Set<String> = ["s3"]
    private let environment: [String: String]

    /// The largest value an S3 tier stores unless its URL says otherwise: 1 GiB, the entry format's limit.
    package static let defaultMaxValueBytes = 1 << 30

    /// A factory reading credentials and the default region from `environment` (the process's by default).
    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// A tier for `url`. Throws `invalidConfiguration` naming what is wrong with the URL, the credentials or
    /// the options; nothing is sent to the server yet.
    package func makeTier(url: URL, options: SharedTierOptions) throws -> any SharedCacheTier {
        try makeS3Tier(url: url, options: options)
    }

    /// Like `makeTier`, typed.
    package func makeS3Tier(url: URL, options: SharedTierOptions) throws -> S3SharedTier {
        let location = try S3TierLocation(url: url, environment: environment)
        guard options.maxValueBytes >= 0 else {
            throw TroveError.invalidConfiguration(
                "shared tier maxValueBytes must not be negative (got \(options.maxValueBytes))")
        }
        guard options.connectTimeout > .zero, options.commandTimeout > .zero else {
            throw TroveError.invalidConfiguration("shared tier connectTimeout and commandTimeout must be positive")
        }
        do {
            let configuration = try S3Configuration(
                endpoint: location.endpoint, region: location.region, bucket: location.bucket,
                credentials: try S3Credentials.resolve(environment: environment, homeDirectory: NSHomeDirectory()),
                addressing: location.addressing)
            var options = options
            options.maxValueBytes = location.maxValueBytes ?? Self.defaultMaxValueBytes
            return S3SharedTier(
                client: S3Client(configuration: configuration), prefix: location.prefix, options: options)
        } catch let error as S3Error {
            throw S3SharedTier.troveError(error)
        }
    }
}
