import Foundation
import Synchronization
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveS3

/// `s3://bucket/key` sources through the fetcher `TroveS3Plugin` registers, against SeaweedFS with SigV4 auth on.
@Suite(.serialized, .seaweedServer) struct S3FetcherTests {
    var server: SeaweedTestServer {
        get throws { try #require(SeaweedServerTrait.current) }
    }

    /// The fetcher a registry with the plugin picks for `s3:` URLs, reading from the suite's server with its
    /// identity (or `secret` in place of its secret).
    func fetcher(secret: String? = nil) throws -> any Fetcher {
        let server = try server
        var registry = PluginRegistry()
        try registry.install(
            TroveS3Plugin(
                environment: [
                    "AWS_ACCESS_KEY_ID": server.accessKeyID, "AWS_SECRET_ACCESS_KEY": secret ?? server.secretAccessKey
                ], sources: S3SourceSettings(endpoint: server.endpoint, region: "us-east-1")))
        return try registry.fetcher(for: URL(string: "s3://\(server.bucket)/any")!)
    }

    /// Stores `data` under a fresh key and returns the source URL naming it.
    func stored(_ data: Data, name: String, contentType: String = "image/png") async throws -> URL {
        let server = try server
        let key = "sources/\(UUID().uuidString.prefix(8))/\(name)"
        _ = try await server.client().put(
            key, data: data, options: S3PutOptions(contentType: contentType), deadline: .now + .seconds(20))
        let encoded = key.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)!
        return URL(string: "s3://\(server.bucket)/\(encoded)")!
    }

    @Test func thePluginRegistersTheFetcherForS3URLs() throws {
        #expect(try fetcher() is S3Fetcher)
        var without = PluginRegistry()
        try without.install(TroveS3Plugin(environment: [:], sources: nil))
        #expect(throws: TroveError.self) { try without.fetcher(for: URL(string: "s3://b/k")!) }
    }

    @Test func anObjectIsFetchedWithItsBytesAndHeaders() async throws {
        let image = Data(SplitMix64.bytes(200_000, seed: 7))
        let url = try await stored(image, name: "a photo ü.png")
        let reports = Mutex<[FetchProgress]>([])
        let observed = Mutex(Data())
        var request = FetchRequest(url: url, deadline: nil)
        request.bodyObserver = { piece in observed.withLock { $0.append(piece) } }
        let outcome = try await fetcher().fetch(request) { report in reports.withLock { $0.append(report) } }
        guard case let .data(data, metadata) = outcome else {
            Issue.record("not data: \(outcome)")
            return
        }
        #expect(data == image)
        #expect(observed.withLock { $0 } == image)
        #expect(metadata.url == url && metadata.statusCode == 200)
        #expect(metadata.contentType == "image/png")
        #expect(metadata.expectedLength == Int64(image.count))
        #expect(metadata.validators.etag?.isEmpty == false)
        #expect(
            reports.withLock { $0.last } == FetchProgress(received: Int64(image.count), expected: Int64(image.count)))
    }

    @Test func aMissingKeyIsTheNotFoundAnHTTP404Gives() async throws {
        let url = URL(string: "s3://\(try server.bucket)/no/such/key-\(UUID().uuidString).png")!
        let error = await #expect(throws: TroveError.self) { try await fetcher().fetch(FetchRequest(url: url)) }
        #expect(error == .httpStatus(404, url: url.absoluteString))
        #expect(error?.description.contains("does not exist") == true, "\(String(describing: error))")
        #expect(error?.isLasting == true)
        // A bucket that does not exist is not found either.
        let elsewhere = URL(string: "s3://no-such-bucket-\(UUID().uuidString.prefix(8).lowercased())/a.png")!
        await #expect(throws: TroveError.httpStatus(404, url: elsewhere.absoluteString)) {
            try await fetcher().fetch(FetchRequest(url: elsewhere))
        }
    }

    @Test func aWrongSecretIsRefusedNamingTheBucketAndNeverTheSecret() async throws {
        let url = try await stored(Data("x".utf8), name: "secret.png")
        let wrong = "wrong-secret-\(UUID().uuidString.prefix(8))"
        let error = await #expect(throws: TroveError.self) {
            try await fetcher(secret: wrong).fetch(FetchRequest(url: url))
        }
        guard case let .invalidConfiguration(reason)? = error else {
            Issue.record("not a refusal: \(String(describing: error))")
            return
        }
        let server = try server
        #expect(reason.contains("S3 bucket \(server.bucket) refused the credentials"), "\(reason)")
        #expect(reason.contains("AWS_SECRET_ACCESS_KEY"), "\(reason)")
        #expect(!reason.contains(wrong) && !reason.contains(server.secretAccessKey))
    }

    @Test func anObjectOverTheByteLimitIsRefused() async throws {
        let url = try await stored(Data(SplitMix64.bytes(10_001, seed: 8)), name: "large.png")
        await #expect(throws: TroveError.tooLarge(url: url.absoluteString, limit: 10_000)) {
            try await fetcher().fetch(FetchRequest(url: url, maxBytes: 10_000))
        }
        // At the limit exactly it is fine.
        let outcome = try await fetcher().fetch(FetchRequest(url: url, maxBytes: 10_001))
        guard case let .data(data, _) = outcome else {
            Issue.record("not data: \(outcome)")
            return
        }
        #expect(data.count == 10_001)
    }

    @Test func credentialsThatCannotBeFoundAreNamed() async throws {
        let home = try temporaryDirectory()
        defer { removeTemporaryDirectory(home) }
        let fetcher = S3Fetcher(
            settings: S3SourceSettings(endpoint: try server.endpoint), environment: ["HOME": home.path])
        let error = await #expect(throws: TroveError.self) {
            try await fetcher.fetch(FetchRequest(url: URL(string: "s3://\(try server.bucket)/a.png")!))
        }
        guard case let .invalidConfiguration(reason)? = error else {
            Issue.record("not a configuration error: \(String(describing: error))")
            return
        }
        #expect(reason.contains("AWS_ACCESS_KEY_ID") && reason.contains(home.path), "\(reason)")
    }

    @Test func anUnreachableEndpointIsAConnectionFailure() async throws {
        let nowhere = URL(string: "http://127.0.0.1:\(try freeLoopbackPort())")!
        let fetcher = S3Fetcher(
            settings: S3SourceSettings(endpoint: nowhere),
            environment: ["AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"])
        let url = URL(string: "s3://b/a.png")!
        let error = await #expect(throws: TroveError.self) { try await fetcher.fetch(FetchRequest(url: url)) }
        guard case let .connectionFailed(shown, reason)? = error else {
            Issue.record("not a connection failure: \(String(describing: error))")
            return
        }
        #expect(shown == url.absoluteString && reason.contains(nowhere.absoluteString), "\(reason)")
    }

    @Test(arguments: [
        ("s3://bucket", "names no key"), ("s3://bucket/", "names no key"), ("s3:///key", "names no bucket"),
        ("s3://bucket/key?versionId=1", "query"), ("s3://user:pass@bucket/key", "credentials"),
        ("s3://bucket:9000/key", "port")
    ])
    func malformedSourcesAreRefusedBeforeAnyRequest(text: String, reason: String) async throws {
        let error = await #expect(throws: TroveError.self) {
            try await S3Fetcher(environment: [:]).fetch(FetchRequest(url: URL(string: text)!))
        }
        guard case let .malformedURL(_, said)? = error else {
            Issue.record("not malformed: \(String(describing: error))")
            return
        }
        #expect(said.contains(reason) && said.contains("s3://bucket/key"), "\(said)")
    }

    @Test func keysArePercentDecodedFromThePath() throws {
        let location = try S3SourceLocation(url: URL(string: "s3://photos/a%20b/%C3%BC%3F.png")!)
        #expect(location.bucket == "photos" && location.key == "a b/ü?.png")
        let slashes = try S3SourceLocation(url: URL(string: "s3://photos//lead")!)
        #expect(slashes.key == "/lead")
    }

    @Test func settingsComeFromTrovesVariablesBeforeImgproxys() throws {
        let both = try S3SourceSettings.fromEnvironment([
            "TROVE_S3_ENDPOINT": "http://127.0.0.1:1", "IMGPROXY_S3_ENDPOINT": "http://127.0.0.1:2",
            "IMGPROXY_S3_REGION": "eu-west-1"
        ])
        #expect(both == S3SourceSettings(endpoint: URL(string: "http://127.0.0.1:1"), region: "eu-west-1"))
        #expect(try S3SourceSettings.fromEnvironment([:]) == S3SourceSettings())
        #expect(throws: S3Error.self) { try S3SourceSettings.fromEnvironment(["IMGPROXY_S3_ENDPOINT": "nowhere"]) }
    }
}
