import FixtureServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Trove
import TroveCodec
import TroveServer

/// imgproxy's delivery options through a real server: `raw` and `skip_processing` answer the source's
/// bytes, `max_bytes` keeps a result under its cap, `filename` and `return_attachment` set
/// `Content-Disposition`, and the watermark needs `--watermark`.
@Suite struct DeliveryOptionsTests {
    static let signer = URLSigner.test

    static func start(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> ServerHarness {
        let origin = try FixtureServer(serving: TestImages.folder, under: "/images/")
        return try await ServerHarness.start(origin: origin) { configuration in
            configuration.keys = [signer.key]
            configuration.salts = [signer.salt]
            configure(&configuration)
        }
    }

    func source(_ harness: ServerHarness, _ name: String) -> String {
        harness.origin.url("/images/\(name)").absoluteString
    }

    func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: TestImages.folder.appendingPathComponent(name))
    }

    @Test func rawAndSkipProcessingAnswerTheSourceExactly() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let rocket = source(harness, "rocket.jpg")

        let raw = try await harness.request(Self.signer.signed("/raw:1/rs:fit:50:50/plain/\(rocket)"))
        #expect(raw.status == .ok)
        let rocketBytes = try fixture("rocket.jpg")
        #expect(raw.bytes == rocketBytes)
        #expect(raw.header(.contentType) == "image/jpeg")

        let skipped = try await harness.request(Self.signer.signed("/skp:jpg/rs:fit:50:50/plain/\(rocket)"))
        #expect(skipped.bytes == rocketBytes)

        // Not skipped for another source format, nor when the URL asks for another format.
        let chelsea = source(harness, "chelsea.png")
        let png = try await harness.request(Self.signer.signed("/skp:jpg/rs:fit:50:50/plain/\(chelsea)@png"))
        let chelseaBytes = try fixture("chelsea.png")
        #expect(png.status == .ok && png.bytes != chelseaBytes)
        let converted = try await harness.request(Self.signer.signed("/skp:jpg/rs:fit:50:50/plain/\(rocket)@png"))
        #expect(converted.header(.contentType) == "image/png")
    }

    @Test func maxBytesKeepsTheResultUnderItsCap() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let chelsea = source(harness, "chelsea.png")

        let full = try await harness.request(Self.signer.signed("/q:95/plain/\(chelsea)@jpg"))
        #expect(full.status == .ok)
        let cap = full.bytes.count / 3
        let capped = try await harness.request(Self.signer.signed("/q:95/mb:\(cap)/plain/\(chelsea)@jpg"))
        #expect(capped.status == .ok)
        #expect(capped.header(.contentType) == "image/jpeg")
        #expect(capped.bytes.count <= cap)
        #expect(capped.bytes.count > 0)
    }

    @Test func contentDispositionNamesTheFile() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let chelsea = source(harness, "chelsea.png")

        let plain = try await harness.request(Self.signer.signed("/rs:fit:20:20/plain/\(chelsea)@png"))
        #expect(plain.header(.contentDisposition) == "inline; filename=\"chelsea.png\"")
        let named = try await harness.request(Self.signer.signed("/fn:kitten/att:1/rs:fit:20:20/plain/\(chelsea)@webp"))
        #expect(named.header(.contentDisposition) == "attachment; filename=\"kitten.webp\"")
        // "été" in URL-safe base64: non-ASCII goes in filename*.
        let accented = try await harness.request(Self.signer.signed("/fn:w6l0w6k:1/rs:fit:20:20/plain/\(chelsea)@png"))
        #expect(
            accented.header(.contentDisposition) == "inline; filename=\"_t_.png\"; filename*=UTF-8''%C3%A9t%C3%A9.png")
    }

    @Test func watermarkNeedsTheServersImage() async throws {
        let without = try await Self.start()
        let chelsea = source(without, "chelsea.png")
        let refused = try await without.request(Self.signer.signed("/wm:0.5/plain/\(chelsea)@png"))
        #expect(refused.status == .badRequest)
        #expect(refused.text.contains("--watermark"))
        await without.stop()

        let markFile = TestImages.folder.appendingPathComponent("badge.png").path
        let harness = try await Self.start { $0.watermarkFile = markFile }
        defer { Task { await harness.stop() } }
        let marked = try await harness.request(
            Self.signer.signed("/wm:1:nowe/plain/\(source(harness, "chelsea.png"))@png"))
        let plain = try await harness.request(Self.signer.signed("/plain/\(source(harness, "chelsea.png"))@png"))
        #expect(marked.status == .ok && plain.status == .ok)
        #expect(marked.bytes != plain.bytes)
    }

    @Test func securityOptionsNeedTheFlag() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let chelsea = source(harness, "chelsea.png")
        let refused = try await harness.request(Self.signer.signed("/mrd:50/plain/\(chelsea)@png"))
        #expect(refused.status == .badRequest)
        #expect(refused.text.contains("--allow-security-options"))

        let allowed = try await Self.start { $0.allowSecurityOptions = true }
        defer { Task { await allowed.stop() } }
        let scaled = try await allowed.request(
            Self.signer.signed("/mrd:50/plain/\(source(allowed, "chelsea.png"))@png"))
        #expect(scaled.status == .ok)
        let image = try PNGDecoder().decode(scaled.bytes, limits: .default)
        #expect(max(image.width, image.height) == 50)
        // max_src_file_size is checked where the source's bytes are served as they are.
        let rocket = source(allowed, "rocket.jpg")
        let size = try fixture("rocket.jpg").count
        let tooLarge = try await allowed.request(Self.signer.signed("/raw:1/msfs:\(size - 1)/plain/\(rocket)"))
        #expect(tooLarge.status.code == 422)
        let fits = try await allowed.request(Self.signer.signed("/raw:1/msfs:\(size)/plain/\(rocket)"))
        #expect(fits.status == .ok)
    }
}
