import FixtureServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Trove
import TroveCodec
import TroveTestSupport

@testable import TroveServer

/// `trove serve` turns every picture upright as imgproxy's `auto_rotate` does (on by default): every EXIF
/// orientation in JPEG, WebP and PNG, and AVIF's and HEIC's irot/imir/clap, planned on the displayed size.
/// `ar:0` keeps the stored pixels and writes the orientation into the result, so it displays the same.
@Suite struct OrientationServeTests {
    static let signer = URLSigner.test
    static let directory = Fixtures.url("orientation")

    static func start() async throws -> ServerHarness {
        let origin = try FixtureServer(serving: directory, under: "/o/")
        return try await ServerHarness.start(origin: origin) { configuration in
            configuration.keys = [signer.key]
            configuration.salts = [signer.salt]
        }
    }

    static func get(_ harness: ServerHarness, _ options: String, _ name: String) async throws -> Image {
        let source = harness.origin.url("/o/\(name)").absoluteString
        let answer = try await harness.request(signer.signed("\(options)/plain/\(source)@png"))
        try #require(answer.status == .ok, "\(name): \(answer.text)")
        return try PNGDecoder().decode(answer.bytes, limits: .default)
    }

    static func reference(_ name: String) throws -> Image {
        try PNGDecoder().decode(try Data(contentsOf: directory.appendingPathComponent(name)), limits: .default)
            .convertedToRGBA8()
    }

    @Test func everyOrientationIsServedUprightAndBoxedOnTheDisplayedSize() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        for format in ["jpeg", "webp", "png"] {
            for orientation in 1...8 {
                let ext = ["jpeg": "jpg", "webp": "webp", "png": "png"][format]!
                let name = "exif-\(format)-o\(orientation).\(ext)"
                let reference = try Self.reference("exif-\(format)-o\(orientation)-ref.png")
                let whole = try await Self.get(harness, "", name)
                #expect(whole.width == 48 && whole.height == 32, "\(name)")
                #expect(psnr(whole, reference) > 40, "\(name)")
                // 24x24 fit on the displayed 48x32 picture: 24x16, landscape, whatever was stored.
                let boxed = try await Self.get(harness, "/rs:fit:24:24", name)
                #expect(boxed.width == 24 && boxed.height == 16, "\(name)")
            }
        }
    }

    /// A URL with no options and no extension is processed as imgproxy processes it, in the source's format:
    /// turned upright, the orientation tag gone, not the source's bytes handed back (which a viewer that
    /// ignores EXIF, irot or imir shows on its side).
    @Test func aURLWithNothingToDoIsStillTurnedUpright() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let registry = try ServerHarness.registry()
        for (name, format, contentType) in [
            ("exif-jpeg-o6.jpg", ImageFormat.jpeg, "image/jpeg"), ("exif-webp-o6.webp", .webp, "image/webp"),
            ("exif-png-o6.png", .png, "image/png"), ("avif-irot1.avif", .avif, "image/avif")
        ] {
            let source = harness.origin.url("/o/\(name)").absoluteString
            let answer = try await harness.request(Self.signer.signed("/plain/\(source)"))
            try #require(answer.status == .ok, "\(name): \(answer.text)")
            #expect(answer.header(.contentType) == contentType, "\(name)")
            #expect(answer.bytes != (try Data(contentsOf: Self.directory.appendingPathComponent(name))), "\(name)")
            let served = try registry.decoder(for: format).decode(answer.bytes, limits: .default).convertedToRGBA8()
            let reference = try Self.reference(name.split(separator: ".")[0] + "-ref.png")
            #expect(served.orientation == .up, "\(name)")
            try #require(served.width == reference.width && served.height == reference.height, "\(name)")
            #expect(psnr(served, reference) > 30, "\(name)")
        }
    }

    @Test func arZeroKeepsTheStoredPixelsAndWritesTheOrientation() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let source = harness.origin.url("/o/exif-jpeg-o6.jpg").absoluteString
        let answer = try await harness.request(Self.signer.signed("/ar:0/plain/\(source)@png"))
        try #require(answer.status == .ok, "\(answer.text)")
        let written = try PNGDecoder().decode(answer.bytes, limits: .default)
        #expect(written.width == 32 && written.height == 48 && written.orientation == .right)
        let upright = try OrientTransformer().transform(written)
        #expect(psnr(upright, try Self.reference("exif-jpeg-o6-ref.png")) > 40)
    }

    @Test func theHEIFFamilysTransformsAreApplied() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        for name in [
            "avif-irot1.avif", "avif-imir0.avif", "avif-clap-offcentre-irot1-imir1.avif", "heic-clap-irot1-imir0.heic"
        ] {
            let served = try await Self.get(harness, "", name)
            let reference = try Self.reference(
                name.replacingOccurrences(of: ".avif", with: "-ref.png")
                    .replacingOccurrences(of: ".heic", with: "-ref.png"))
            try #require(served.width == reference.width && served.height == reference.height, "\(name)")
            #expect(psnr(served, reference) > 40, "\(name)")
        }
    }

    @Test func infoGivesTheDisplayedSizeAndTheStoredOrientation() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        struct Info: Decodable {
            let width: Int
            let height: Int
            let orientation: Int
        }
        for (name, width, height, orientation) in [
            ("portrait-o6.jpg", 480, 640, 6), ("exif-png-o8.png", 48, 32, 8), ("avif-irot1.avif", 32, 48, 8),
            ("heic-irot1.heic", 64, 96, 1)
        ] {
            let source = harness.origin.url("/o/\(name)").absoluteString
            let answer = try await harness.request("/info" + Self.signer.signed("/plain/\(source)"))
            let info = try JSONDecoder().decode(Info.self, from: answer.bytes)
            #expect(info.width == width && info.height == height && info.orientation == orientation, "\(name)")
        }
    }
}
