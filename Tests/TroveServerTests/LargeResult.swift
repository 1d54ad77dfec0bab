import FixtureServer
import Foundation
import Trove
import TroveCodec
import TroveServer

/// A server whose result cache holds a result of about 6 MB, far more than the kernel's socket buffers
/// hold for one connection, so a client that reads slowly keeps most of it waiting in the server.
struct LargeResult {
    let harness: ServerHarness
    /// The signed path of the result (`raw:1`: the source's own bytes).
    let path: String
    /// What the path answers.
    let body: Data

    /// A noise PNG of 1400 x 1100 RGBA pixels, which does not compress: about 6.2 MB.
    static let png: Data = {
        let width = 1400, height = 1100
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for index in pixels.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            pixels[index] = UInt8(truncatingIfNeeded: state >> 56)
        }
        let image = Image(width: width, height: height, pixels: pixels)
        return try! PNGEncoder().encode(image, options: EncodingOptions())
    }()

    /// Starts a signed server (`configure` adjusts it) and asks for the result once, so it is kept.
    static func start(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> LargeResult {
        let origin = FixtureServer()
        origin.setRoute("/large.png", .file(png, contentType: "image/png"))
        let signer = URLSigner.test
        let harness = try await ServerHarness.start(origin: origin) { configuration in
            configuration.keys = [signer.key]
            configuration.salts = [signer.salt]
            configure(&configuration)
        }
        let path = signer.signed("/raw:1/plain/\(origin.url("/large.png"))")
        let first = try await harness.request(path)
        guard first.status == .ok, first.bytes == png else {
            await harness.stop()
            throw LargeResultError.notServed(status: first.status.code)
        }
        return LargeResult(harness: harness, path: path, body: png)
    }

    /// The request for the result, ending in its blank line; `close` asks for the connection to close.
    func request(close: Bool = false) -> String {
        "GET \(path) HTTP/1.1\r\nHost: trove.test\r\n\(close ? "Connection: close\r\n" : "")\r\n"
    }
}

enum LargeResultError: Error {
    case notServed(status: Int)
}
