import FixtureServer
import Foundation
import Testing
import TroveImgproxy
import TroveTestSupport

/// `trove serve` keeping results in the shared tier (S3 alone, a real SeaweedFS on loopback): a result made by
/// one server answers another on an empty disk, and the key it is kept under never holds the URL's signature,
/// so rotating `IMGPROXY_KEY` and `IMGPROXY_SALT` keeps every stored result.
@Suite(.serialized) struct SharedResultsServeTests {
    static let image = try! Data(contentsOf: Fixtures.images.appendingPathComponent("badge.png"))

    @Test func aRotatedKeyStillFindsTheResultsTheOldKeyMade() async throws {
        let work = try temporaryDirectory()
        defer { removeTemporaryDirectory(work) }
        let origin = FixtureServer(routes: ["/rotate/badge.png": .file(Self.image, contentType: "image/png")])
        try await origin.start()
        let keys = [
            ("943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881", "520f986b998545b4"),
            ("1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c5b6a7988", "a0b1c2d3e4f50617")
        ]
        try await withSeaweedServer { seaweed in
            let tier =
                "s3://\(seaweed.bucket)/rotate?endpoint=\(seaweed.endpoint.absoluteString)&region=us-east-1"
            func server(_ name: String, key: (String, String)) throws -> TroveServeProcess {
                TroveServeProcess(
                    port: try freeLoopbackPort(),
                    arguments: [
                        "--cache-dir", work.appendingPathComponent(name).path, "--allow-loopback-sources",
                        "--shared-cache", tier, "--health-grace", "1", "--drain-seconds", "5", "--log-level", "error"
                    ],
                    environment: [
                        "AWS_ACCESS_KEY_ID": seaweed.accessKeyID, "AWS_SECRET_ACCESS_KEY": seaweed.secretAccessKey,
                        "IMGPROXY_KEY": key.0, "IMGPROXY_SALT": key.1
                    ])
            }
            func signed(_ path: String, with key: (String, String)) throws -> String {
                "/" + (try ImgproxySignature(hexKeys: [key.0], hexSalts: [key.1])).sign(path: path) + path
            }
            func metric(_ name: String, of server: TroveServeProcess) async -> Double? {
                let text = await get(port: server.port, path: "/metrics", keepingBody: true)?.text ?? ""
                return S3FleetFaultTests.metric(name, in: text)
                    ?? StackedSharedCacheTests.metric(name, tier: "s3", in: text)
            }
            let path = "/rs:fit:20:20/plain/\(origin.url("/rotate/badge.png"))@png"

            let first = try server("first", key: keys[0])
            try await first.start()
            let made = await get(port: first.port, path: try signed(path, with: keys[0]), keepingBody: true)
            #expect(made?.status == 200 && made?.isComplete == true, "\(String(describing: made?.status))")
            #expect(await metric("trove_results_processed_total", of: first) == 1)
            // The source and the result, stored behind the answer.
            let stored = await eventually(within: .seconds(10)) {
                await metric("trove_shared_tier_stores_total", of: first) == 2
            }
            #expect(stored)
            await first.stop()

            // The key and salt rotated, on an empty disk: the old signature is refused, the new one is answered
            // with the first server's bytes, from S3, without the origin or a transform.
            let second = try server("second", key: keys[1])
            try await second.start()
            #expect(await get(port: second.port, path: try signed(path, with: keys[0]))?.status == 403)
            let again = await get(port: second.port, path: try signed(path, with: keys[1]), keepingBody: true)
            #expect(again?.status == 200 && again?.body == made?.body, "\(String(describing: again?.status))")
            #expect(await metric("trove_results_processed_total", of: second) == 0)
            #expect(await metric("trove_shared_tier_hits_total", of: second) == 1)
            #expect(origin.requestCount(for: "/rotate/badge.png") == 1)
            await second.stop()
        }
        await origin.stop()
    }
}
