import FixtureServer
import Foundation
import Logging
import Testing
import Trove
import TroveCodec
import TroveServer

/// A deployment moved over from imgproxy with its environment unchanged: `IMGPROXY_KEY` and `IMGPROXY_SALT`
/// given to `ServerConfiguration`'s layers make the server require imgproxy's signatures.
@Suite struct ImgproxyDeploymentTests {
    static let signer = URLSigner.test

    @Test func imgproxysKeyAndSaltSignURLsAndUnsignedOnesAreRefused() async throws {
        let origin = try FixtureServer(serving: TestImages.folder, under: "/images/")
        try await origin.start()
        let cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-serve-\(UUID().uuidString)")
        let configuration = try ServerConfiguration(
            environment: [
                "IMGPROXY_KEY": Self.signer.key, "IMGPROXY_SALT": Self.signer.salt, "IMGPROXY_BIND": "127.0.0.1:0",
                "TROVE_ALLOW_LOOPBACK_SOURCES": "true", "TROVE_CACHE_DIR": cacheDirectory.path,
                "IMGPROXY_LOG_LEVEL": "error"
            ])
        #expect(configuration.requiresSignature)
        var logger = Logger(label: "trove.serve.test")
        logger.logLevel = .error
        let server = try ImageProxyServer(
            configuration: configuration, registry: try ServerHarness.registry(), logger: logger)
        let port = try await server.start()
        let harness = ServerHarness(server: server, origin: origin, port: port, cacheDirectory: cacheDirectory)
        defer { Task { await harness.stop() } }

        let path = "/rs:fit:40:40/plain/\(origin.url("/images/chelsea.png").absoluteString)@png"
        let signed = try await harness.request(Self.signer.signed(path))
        #expect(signed.status == .ok)
        #expect(signed.header(.contentType) == "image/png")
        let image = try PNGDecoder().decode(signed.bytes, limits: .default)
        #expect(max(image.width, image.height) == 40)

        // imgproxy's unsigned forms, and a signature made with another salt, are all refused.
        for unsigned in ["/insecure" + path, "/unsafe" + path, "/_" + path] {
            let refused = try await harness.request(unsigned)
            #expect(refused.status == .forbidden, "\(unsigned)")
            #expect(refused.text.contains("invalid signature"))
        }
        let otherSalt = URLSigner(key: Self.signer.key, salt: "00" + Self.signer.salt.dropFirst(2))
        #expect(try await harness.request(otherSalt.signed(path)).status == .forbidden)
        // The origin was asked once, by the signed request only.
        #expect(origin.requestCount(for: "/images/chelsea.png") == 1)
    }
}
