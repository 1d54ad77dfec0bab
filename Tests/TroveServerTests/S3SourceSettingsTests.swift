import Foundation
import Testing
import Trove
import TroveServer

/// imgproxy's `IMGPROXY_USE_S3`, `IMGPROXY_S3_ENDPOINT` and `IMGPROXY_S3_REGION` beside Trove's own
/// `--s3-sources`, `--s3-endpoint` and `--s3-region` (and `TROVE_S3_*`).
@Suite struct S3SourceSettingsTests {
    @Test func s3SourcesAreOffByDefault() throws {
        let configuration = try ServerConfiguration(arguments: [])
        #expect(!configuration.s3Sources && configuration.s3Endpoint == nil && configuration.s3Region == nil)
    }

    @Test func imgproxysVariablesYieldToTrovesAndFlagsWin() throws {
        let imgproxy = try ServerConfiguration(
            environment: [
                "IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": "http://127.0.0.1:8333",
                "IMGPROXY_S3_REGION": "eu-west-1"
            ], arguments: [])
        #expect(imgproxy.s3Sources)
        #expect(imgproxy.s3Endpoint == URL(string: "http://127.0.0.1:8333"))
        #expect(imgproxy.s3Region == "eu-west-1")
        #expect(ServerConfiguration.ignoredVariables(in: ["IMGPROXY_USE_S3": "1", "IMGPROXY_S3_REGION": "x"]) == [])

        let layered = try ServerConfiguration(
            environment: [
                "IMGPROXY_USE_S3": "false", "TROVE_S3_SOURCES": "1", "IMGPROXY_S3_REGION": "eu-west-1",
                "TROVE_S3_REGION": "us-west-2", "TROVE_S3_ENDPOINT": "https://s3.example.com"
            ], arguments: ["--s3-endpoint", "http://[::1]:9000"])
        #expect(layered.s3Sources && layered.s3Region == "us-west-2")
        #expect(layered.s3Endpoint == URL(string: "http://[::1]:9000"))
        #expect(try ServerConfiguration(arguments: ["--s3-sources"]).s3Sources)
    }

    @Test func anEndpointThatIsNotOneIsNamedAsGiven() throws {
        for text in ["s3.example.com", "ftp://host", "http://host/path", "http://host?x=1"] {
            #expect(
                throws: ServerConfigurationError(
                    "IMGPROXY_S3_ENDPOINT=\(text) is not an S3 endpoint; give http(s)://host[:port]")
            ) {
                try ServerConfiguration(environment: ["IMGPROXY_S3_ENDPOINT": text], arguments: [])
            }
        }
        #expect(
            throws: ServerConfigurationError("--s3-endpoint nowhere is not an S3 endpoint; give http(s)://host[:port]")
        ) {
            try ServerConfiguration(arguments: ["--s3-endpoint", "nowhere"])
        }
        #expect(throws: ServerConfigurationError.self) {
            try ServerConfiguration(environment: ["IMGPROXY_USE_S3": "maybe"], arguments: [])
        }
    }
}
