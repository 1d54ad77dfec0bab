import Foundation
import Testing
import TroveTestSupport

@testable import TroveS3

/// Starts one SeaweedFS for the suite it is attached to (`@Suite(.seaweedServer)`) and stops it (kill, then
/// wait) when the suite's last test has run; the tests reach it through `SeaweedServerTrait.current`.
struct SeaweedServerTrait: SuiteTrait, TestScoping {
    /// The suite's server while its tests run.
    @TaskLocal static var current: SeaweedTestServer?

    /// Once for the suite, not once per test.
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withSeaweedServer { server in
            try await Self.$current.withValue(server) { try await function() }
        }
    }
}

extension Trait where Self == SeaweedServerTrait {
    /// One SeaweedFS for the whole suite.
    static var seaweedServer: Self { SeaweedServerTrait() }
}

extension SeaweedTestServer {
    /// A client for the server's bucket (or `bucket`) signed with its identity, or with `secret` instead of
    /// its secret.
    nonisolated func client(
        bucket: String? = nil, secret: String? = nil, retry: S3RetryPolicy = S3RetryPolicy(),
        partSize: Int = 8 << 20, multipartThreshold: Int = 16 << 20, payloadSigning: S3PayloadSigning = .signed
    ) throws -> S3Client {
        S3Client(
            configuration: try S3Configuration(
                endpoint: endpoint, region: "us-east-1", bucket: bucket ?? self.bucket,
                credentials: S3Credentials(accessKeyID: accessKeyID, secretAccessKey: secret ?? secretAccessKey),
                payloadSigning: payloadSigning, multipartThreshold: multipartThreshold, partSize: partSize,
                retry: retry))
    }
}
