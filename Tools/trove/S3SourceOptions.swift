import ArgumentParser
import Foundation
import TroveS3

/// Where `s3://bucket/key` URLs are read from: `--s3-endpoint` and `--s3-region`, over `TROVE_S3_ENDPOINT`
/// and `TROVE_S3_REGION` (else imgproxy's `IMGPROXY_S3_ENDPOINT` and `IMGPROXY_S3_REGION`). Credentials come
/// from `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`, else the shared credentials file.
struct S3SourceOptions: ParsableArguments {
    @Option(
        name: .customLong("s3-endpoint"),
        help: ArgumentHelp(
            "S3 endpoint s3://bucket/key URLs are read from, http(s)://host[:port] (default: TROVE_S3_ENDPOINT, "
                + "else AWS's for the region).", valueName: "url"))
    var endpoint: String?

    @Option(
        name: .customLong("s3-region"),
        help: ArgumentHelp(
            "Region s3:// URLs are signed for (default: TROVE_S3_REGION, else AWS_REGION, else us-east-1).",
            valueName: "region"))
    var region: String?

    func validate() throws {
        _ = try settings(environment: [:])
    }

    /// The environment's settings with the flags over them.
    func settings(environment: [String: String]) throws -> S3SourceSettings {
        do {
            var settings = try S3SourceSettings.fromEnvironment(environment)
            if let endpoint { settings.endpoint = try S3SourceSettings.endpoint(endpoint, givenBy: "--s3-endpoint") }
            if let region, !region.isEmpty { settings.region = region }
            return settings
        } catch let error as S3Error {
            throw ValidationError(error.description)
        }
    }
}
