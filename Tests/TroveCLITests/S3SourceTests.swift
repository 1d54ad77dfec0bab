import Foundation
import Testing
import TroveS3
import TroveTestSupport

/// `s3://bucket/key` sources through the `trove` binary on a real SeaweedFS (SigV4 auth on, loopback only):
/// `trove get` writes the object, and `trove serve` with `IMGPROXY_USE_S3` answers imgproxy URLs naming it,
/// under the allowed sources and the source size limit, and refuses them, saying how to switch them on,
/// without it.
@Suite(.serialized, SuiteSeaweed()) struct S3SourceTests {
    static let tiles = try! Data(contentsOf: Fixtures.images.appendingPathComponent("tiles.png"))

    var seaweed: SeaweedTestServer { SuiteSeaweed.current! }

    /// The credentials of the server's identity (or a wrong secret) as the AWS variables.
    func credentials(secret: String? = nil) -> [String: String] {
        ["AWS_ACCESS_KEY_ID": seaweed.accessKeyID, "AWS_SECRET_ACCESS_KEY": secret ?? seaweed.secretAccessKey]
    }

    /// Stores `data` under `key` in the suite's bucket; the `s3://` URL naming it.
    func stored(_ data: Data, key: String) async throws -> String {
        let client = S3Client(
            configuration: try S3Configuration(
                endpoint: seaweed.endpoint, region: "us-east-1", bucket: seaweed.bucket,
                credentials: S3Credentials(accessKeyID: seaweed.accessKeyID, secretAccessKey: seaweed.secretAccessKey)
            ))
        _ = try await client.put(
            key, data: data, options: S3PutOptions(contentType: "image/png"), deadline: .now + .seconds(20))
        return "s3://\(seaweed.bucket)/\(key)"
    }

    /// The width and height a PNG's header gives; nil for bytes that are not a PNG.
    static func pngSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            return nil
        }
        func number(at offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (number(at: 16), number(at: 20))
    }

    @Test func getWritesAnS3ObjectAndNamesWhatWentWrong() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let url = try await stored(Self.tiles, key: "cli/get/tiles.png")
        let output = work.appendingPathComponent("tiles.png")
        let cli = CLIRunner(cacheDirectory: work.appendingPathComponent("cache"))

        let fetched = try await cli.run(
            [
                "get", url, "--json", "-o", output.path, "--s3-endpoint", seaweed.endpoint.absoluteString,
                "--s3-region", "us-east-1"
            ],
            environment: credentials())
        #expect(fetched.status == 0, "stderr: \(fetched.stderr)")
        let report = try #require(fetched.jsonLines.first)
        #expect(report["source"] as? String == "network")
        #expect(report["width"] as? Int == 320 && report["height"] as? Int == 200, "\(report)")
        #expect(try Data(contentsOf: output) == Self.tiles)

        // The endpoint from the environment; a key that is not there is not found, as an HTTP 404 is.
        let endpoint = ["TROVE_S3_ENDPOINT": seaweed.endpoint.absoluteString]
        let missing = "s3://\(seaweed.bucket)/cli/get/none.png"
        let notFound = try await cli.run(["get", missing], environment: credentials().merging(endpoint) { $1 })
        #expect(notFound.status == 1)
        #expect(notFound.stderr.contains("HTTP 404 for \(missing)"), "stderr: \(notFound.stderr)")
        #expect(notFound.stderr.contains("does not exist"), "stderr: \(notFound.stderr)")

        // Refused credentials name the bucket and the variable, never the secret.
        let wrong = "wrong-secret-\(UUID().uuidString.prefix(8))"
        let refused = try await CLIRunner(cacheDirectory: work.appendingPathComponent("other")).run(
            ["get", url], environment: credentials(secret: wrong).merging(endpoint) { $1 })
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("S3 bucket \(seaweed.bucket) refused the credentials"), "\(refused.stderr)")
        #expect(refused.stderr.contains("AWS_SECRET_ACCESS_KEY"), "stderr: \(refused.stderr)")
        #expect(!(refused.stdout + refused.stderr).contains(wrong))
        #expect(!(refused.stdout + refused.stderr).contains(seaweed.secretAccessKey))

        // An endpoint that is not a URL is refused before anything runs.
        let bad = try await cli.run(["get", url, "--s3-endpoint", "nowhere"], environment: credentials())
        #expect(bad.status != 0 && bad.stderr.contains("--s3-endpoint nowhere is not an S3 endpoint"), "\(bad.stderr)")
    }

    /// `trove serve` with imgproxy's S3 settings and `extra` in the environment; started.
    func server(_ work: URL, environment extra: [String: String] = [:], arguments: [String] = []) async throws
        -> TroveServeProcess
    {
        let server = TroveServeProcess(
            port: try freeLoopbackPort(),
            arguments: [
                "--cache-dir", work.appendingPathComponent("cache-\(UUID().uuidString.prefix(8))").path,
                "--health-grace", "0", "--drain-seconds", "5", "--log-level", "error"
            ] + arguments,
            environment: credentials().merging(
                [
                    "IMGPROXY_S3_ENDPOINT": seaweed.endpoint.absoluteString, "IMGPROXY_S3_REGION": "us-east-1"
                ].merging(extra) { $1 }
            ) { $1 })
        try await server.start()
        return server
    }

    @Test func serveAnswersAnS3SourceWithUseS3() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let url = try await stored(Self.tiles, key: "serve/tiles.png")
        let server = try await server(work, environment: ["IMGPROXY_USE_S3": "1"])
        let answer = await get(
            port: server.port, path: "/insecure/rs:fit:50:50/plain/\(url)@png", keepingBody: true)
        #expect(answer?.status == 200, "\(String(describing: answer?.text))")
        let size = try #require(Self.pngSize(answer?.body ?? []))
        #expect(size.width == 50 && size.height == 31, "\(size)")
        // A missing key is the source's 404.
        let missing = await get(
            port: server.port, path: "/insecure/rs:fit:50:50/plain/s3://\(seaweed.bucket)/serve/none.png@png",
            keepingBody: true)
        #expect(missing?.status == 404, "\(String(describing: missing?.text))")
        #expect(missing?.text.contains("not found") == true, "\(String(describing: missing?.text))")
        await server.stop()
    }

    @Test func serveRefusesS3SourcesUntilUseS3IsSet() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let url = try await stored(Self.tiles, key: "off/tiles.png")
        let server = try await server(work)
        let answer = await get(port: server.port, path: "/insecure/rs:fit:50:50/plain/\(url)@png", keepingBody: true)
        #expect(answer?.status == 404)
        #expect(answer?.text.contains("set IMGPROXY_USE_S3=true") == true, "\(String(describing: answer?.text))")
        await server.stop()
    }

    @Test func serveHoldsS3SourcesToTheAllowedSourcesAndTheSizeLimit() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let allowed = try await stored(Self.tiles, key: "public/tiles.png")
        let other = try await stored(Self.tiles, key: "private/tiles.png")
        let large = try await stored(Self.tiles + Data(count: 4096), key: "public/large.png")
        let server = try await server(
            work,
            environment: [
                "IMGPROXY_USE_S3": "true", "IMGPROXY_ALLOWED_SOURCES": "s3://\(seaweed.bucket)/public/",
                "TROVE_MAX_SOURCE_BYTES": String(Self.tiles.count + 100)
            ])
        let path = { (source: String) in "/insecure/rs:fit:50:50/plain/\(source)@png" }
        #expect(await get(port: server.port, path: path(allowed))?.status == 200)
        let refused = await get(port: server.port, path: path(other), keepingBody: true)
        #expect(
            refused?.status == 404 && refused?.text.contains("not allowed") == true, "\(String(describing: refused))")
        let tooLarge = await get(port: server.port, path: path(large), keepingBody: true)
        #expect(tooLarge?.status == 413, "\(String(describing: tooLarge?.text))")
        #expect(tooLarge?.text.contains("larger than the limit") == true, "\(String(describing: tooLarge?.text))")
        await server.stop()
    }
}
