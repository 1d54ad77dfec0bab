import FixtureServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Trove

@testable import TroveServer

/// `/info/SIGNATURE/OPTIONS/plain/SOURCE` (and the base64 form): a source's size, format, frames,
/// orientation, colour profile and byte size as JSON, signed like image URLs.
@Suite struct InfoEndpointTests {
    static let signer = URLSigner.test

    struct Info: Decodable, Equatable {
        struct Profile: Decodable, Equatable {
            let description: String
            let icc_bytes: Int?
        }
        let width: Int
        let height: Int
        let format: String
        let frames: Int
        let orientation: Int
        let color_profile: Profile?
        let size: Int
    }

    static func start() async throws -> ServerHarness {
        let origin = try FixtureServer(serving: TestImages.folder, under: "/images/")
        let fixtures = TestImages.folder.deletingLastPathComponent()
        origin.setRoute(
            "/images/orientation6.jpg",
            .file(
                try Data(contentsOf: fixtures.appendingPathComponent("jpeg/orientation6.jpg")),
                contentType: "image/jpeg"))
        origin.setRoute(
            "/images/animated.gif",
            .file(try Data(contentsOf: fixtures.appendingPathComponent("gif/animated.gif")), contentType: "image/gif"))
        origin.setRoute(
            "/images/mluc.png",
            .file(
                try Data(contentsOf: fixtures.appendingPathComponent("jxl/lossy-photo.png")), contentType: "image/png"))
        return try await ServerHarness.start(origin: origin) { configuration in
            configuration.keys = [signer.key]
            configuration.salts = [signer.salt]
        }
    }

    func info(_ harness: ServerHarness, _ name: String, options: String = "") async throws -> Info {
        let source = harness.origin.url("/images/\(name)").absoluteString
        let answer = try await harness.request("/info" + Self.signer.signed("\(options)/plain/\(source)"))
        #expect(answer.status == .ok, "\(name): \(answer.text)")
        #expect(answer.header(.contentType) == "application/json")
        return try JSONDecoder().decode(Info.self, from: answer.bytes)
    }

    @Test func describesTheSource() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let chelsea = try Data(contentsOf: TestImages.folder.appendingPathComponent("chelsea.png"))
        #expect(
            try await info(harness, "chelsea.png")
                == Info(
                    width: 451, height: 300, format: "png", frames: 1, orientation: 1,
                    color_profile: .init(description: "sRGB IEC61966-2.1", icc_bytes: 3144), size: chelsea.count))
        let rocket = try await info(harness, "rocket.jpg", options: "/rs:fit:10:10")
        #expect(rocket.format == "jpeg" && rocket.color_profile?.description == "Adobe RGB (1998)")
        #expect(rocket.color_profile?.icc_bytes == 560)
        #expect(try await info(harness, "orientation6.jpg").orientation == 6)
        let animated = try await info(harness, "animated.gif")
        #expect(animated.frames == 5 && animated.width == 24 && animated.height == 20 && animated.format == "gif")
        // An ICC v4 profile names itself in an mluc tag.
        #expect(try await info(harness, "mluc.png").color_profile?.description == "sRGB")
        #expect(try await info(harness, "coffee.png").color_profile == nil)
    }

    @Test func isSignedLikeImageURLs() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let source = harness.origin.url("/images/chelsea.png").absoluteString
        let unsigned = try await harness.request("/info/insecure/plain/\(source)")
        #expect(unsigned.status == .forbidden)
        // An image URL's signature is for its own path: moved under /info it still checks, as imgproxy's.
        let encoded = Data(source.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let base64 = try await harness.request("/info" + Self.signer.signed("/\(encoded)"))
        #expect(base64.status == .ok)
        let decoded = try JSONDecoder().decode(Info.self, from: base64.bytes)
        #expect(decoded.width == 451 && decoded.format == "png")
        // The access log never holds the signature.
        let signed = "/info" + Self.signer.signed("/\(encoded)")
        #expect(!ProxyResponder.redacted(signed).contains(String(signed.dropFirst(6).prefix(43))))
    }

    @Test func iccNamesAreReadFromBothTagForms() {
        func profile(tag: [UInt8]) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: 128) + [0, 0, 0, 1] + Array("desc".utf8)
            bytes += [0, 0, 0, 144] + [0, 0, 0, UInt8(tag.count)]
            return bytes + tag
        }
        let v2 = Array("desc".utf8) + [0, 0, 0, 0, 0, 0, 0, 6] + Array("Hello".utf8) + [0]
        #expect(ICCProfileName.read(profile(tag: v2)) == "Hello")
        let text = Array("Wide".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let v4 =
            Array("mluc".utf8) + [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 12] + Array("enUS".utf8)
            + [0, 0, 0, UInt8(text.count), 0, 0, 0, 28] + text
        #expect(ICCProfileName.read(profile(tag: v4)) == "Wide")
        #expect(ICCProfileName.read(Array(repeating: 0, count: 200)) == nil)
        #expect(ICCProfileName.read(profile(tag: Array("desc".utf8) + [0, 0, 0, 0, 255, 255, 255, 255])) == nil)
    }
}
