import FixtureServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Trove
import TroveCodec
import TroveServer

/// The delivery settings through a real server: `Last-Modified` and `If-Modified-Since`, Cache-Control and
/// Expires passed through from the source, ETags turned off, enforced and preferred formats, formats answered
/// unprocessed, and the watermark's base opacity.
@Suite struct DeliveryHeadersTests {
    static let signer = URLSigner.test

    static func start(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> ServerHarness {
        try await DeliveryOptionsTests.start(configure)
    }

    func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: TestImages.folder.appendingPathComponent(name))
    }

    @Test func lastModifiedComesFromTheSourceAndAnswersIfModifiedSince() async throws {
        let harness = try await Self.start { $0.useLastModified = true }
        defer { Task { await harness.stop() } }
        let modified = Date(timeIntervalSince1970: 1_700_000_000)  // Tue, 14 Nov 2023 22:13:20 GMT
        harness.origin.setRoute(
            "/dated.png", .conditional(try fixture("chelsea.png"), contentType: "image/png", lastModified: modified))
        let path = Self.signer.signed("/rs:fit:30:30/plain/\(harness.origin.url("/dated.png").absoluteString)@png")

        let first = try await harness.request(path)
        #expect(first.status == .ok)
        #expect(first.header(.lastModified) == "Tue, 14 Nov 2023 22:13:20 GMT")
        let same = try await harness.request(path, headers: [.ifModifiedSince: "Tue, 14 Nov 2023 22:13:20 GMT"])
        #expect(same.status == .notModified && same.bytes.isEmpty)
        #expect(same.header(.lastModified) == "Tue, 14 Nov 2023 22:13:20 GMT")
        let earlier = try await harness.request(path, headers: [.ifModifiedSince: "Tue, 14 Nov 2023 22:13:19 GMT"])
        #expect(earlier.status == .ok && earlier.bytes == first.bytes)
        // If-None-Match decides when both are sent.
        let tagged = try await harness.request(
            path, headers: [.ifModifiedSince: "Tue, 14 Nov 2023 22:13:20 GMT", .ifNoneMatch: "\"other\""])
        #expect(tagged.status == .ok)
    }

    @Test func withoutTheSettingNoLastModifiedIsSent() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let path = Self.signer.signed(
            "/rs:fit:30:30/plain/\(harness.origin.url("/images/chelsea.png").absoluteString)@png")
        let answer = try await harness.request(path, headers: [.ifModifiedSince: "Fri, 01 Jan 2100 00:00:00 GMT"])
        #expect(answer.status == .ok && answer.header(.lastModified) == nil)
        #expect(answer.header(.cacheControl) == "public, max-age=31536000")
    }

    @Test func cacheControlAndExpiresPassThroughFromTheSource() async throws {
        let harness = try await Self.start { $0.cacheControlPassthrough = true }
        defer { Task { await harness.stop() } }
        let png = try fixture("chelsea.png")
        harness.origin.setRoute(
            "/cc.png", .withHeaders(["Cache-Control": "public, max-age=600"], .file(png, contentType: "image/png")))
        harness.origin.setRoute(
            "/expires.png",
            .withHeaders(["Expires": "Wed, 21 Oct 2099 07:28:00 GMT"], .file(png, contentType: "image/png")))
        func path(_ name: String) -> String {
            Self.signer.signed("/rs:fit:30:30/plain/\(harness.origin.url(name).absoluteString)@png")
        }

        let cached = try await harness.request(path("/cc.png"))
        #expect(cached.status == .ok && cached.header(.cacheControl) == "public, max-age=600")
        #expect(cached.header(.expires) == nil)
        let expiring = try await harness.request(path("/expires.png"))
        #expect(expiring.header(.cacheControl) == nil)
        let expires = try #require(expiring.header(.expires))
        #expect(expires.hasSuffix(" 2099 07:28:00 GMT") || expires.contains(" 2099 "), "\(expires)")
        // A source that says neither keeps the server's own max-age.
        let plain = try await harness.request(path("/images/coffee.png"))
        #expect(plain.header(.cacheControl) == "public, max-age=31536000")
        // And a hit from the result cache says the same as the first answer.
        #expect(try await harness.request(path("/cc.png")).header(.cacheControl) == "public, max-age=600")
    }

    @Test func noETagSendsNoneAndIgnoresIfNoneMatch() async throws {
        let withTags = try await Self.start()
        let path = "/rs:fit:30:30/plain/\(withTags.origin.url("/images/chelsea.png").absoluteString)@png"
        let tagged = try await withTags.request(Self.signer.signed(path))
        let tag = try #require(tagged.header(.eTag))
        await withTags.stop()

        let harness = try await Self.start { $0.useEntityTags = false }
        defer { Task { await harness.stop() } }
        let path2 = "/rs:fit:30:30/plain/\(harness.origin.url("/images/chelsea.png").absoluteString)@png"
        let answer = try await harness.request(Self.signer.signed(path2), headers: [.ifNoneMatch: tag])
        #expect(answer.status == .ok && answer.header(.eTag) == nil)
        #expect(answer.bytes == tagged.bytes)
    }

    @Test func enforcedFormatsWinOverTheURLsForClientsThatAcceptThem() async throws {
        let harness = try await Self.start { $0.enforcedFormats = [.webp] }
        defer { Task { await harness.stop() } }
        let path = Self.signer.signed(
            "/rs:fit:30:30/plain/\(harness.origin.url("/images/chelsea.png").absoluteString)@png")

        let webp = try await harness.request(path, headers: [.accept: "image/avif,image/webp,*/*"])
        #expect(webp.header(.contentType) == "image/webp")
        #expect(webp.header(.vary) == "Accept")
        let png = try await harness.request(path, headers: [.accept: "image/png,*/*"])
        #expect(png.header(.contentType) == "image/png")
        #expect(png.header(.vary) == "Accept")
        // Again, from the result cache: each client still gets its own.
        #expect(try await harness.request(path, headers: [.accept: "image/webp"]).header(.contentType) == "image/webp")
        #expect(try await harness.request(path).header(.contentType) == "image/png")
    }

    @Test func preferredFormatsChooseTheResultsFormatWhenNothingElseDoes() async throws {
        let harness = try await Self.start { $0.preferredFormats = [.jpeg, .png] }
        defer { Task { await harness.stop() } }
        func path(_ name: String) -> String {
            Self.signer.signed("/rs:fit:30:30/plain/\(harness.origin.url("/images/\(name)").absoluteString)")
        }
        // A source in a preferred format keeps it.
        #expect(try await harness.request(path("rocket.jpg")).header(.contentType) == "image/jpeg")
        #expect(try await harness.request(path("chelsea.png")).header(.contentType) == "image/png")
        // A GIF is not preferred: an opaque one becomes the first preferred, JPEG; one with transparency
        // skips JPEG for PNG.
        harness.origin.setRoute(
            "/images/still.gif",
            .file(
                try Data(
                    contentsOf: TestImages.folder.deletingLastPathComponent().appendingPathComponent("gif/still.gif")),
                contentType: "image/gif"))
        harness.origin.setRoute(
            "/images/transparent.gif",
            .file(
                try Data(
                    contentsOf: TestImages.folder.deletingLastPathComponent().appendingPathComponent(
                        "gif/transparent.gif")), contentType: "image/gif"))
        #expect(try await harness.request(path("still.gif")).header(.contentType) == "image/jpeg")
        #expect(try await harness.request(path("transparent.gif")).header(.contentType) == "image/png")
    }

    @Test func skipProcessingFormatsAnswerThoseSourcesAsTheyAre() async throws {
        let harness = try await Self.start { $0.skipProcessingFormats = [.jpeg] }
        defer { Task { await harness.stop() } }
        func path(_ name: String) -> String {
            Self.signer.signed("/rs:fit:30:30/plain/\(harness.origin.url("/images/\(name)").absoluteString)")
        }
        let rocket = try await harness.request(path("rocket.jpg"))
        let rocketBytes = try fixture("rocket.jpg")
        #expect(rocket.bytes == rocketBytes)
        let chelsea = try await harness.request(path("chelsea.png"))
        let chelseaBytes = try fixture("chelsea.png")
        #expect(chelsea.status == .ok && chelsea.bytes != chelseaBytes)
        let image = try PNGDecoder().decode(chelsea.bytes, limits: .default)
        #expect(max(image.width, image.height) == 30)
    }

    @Test func theWatermarksBaseOpacityScalesTheURLs() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trove-wm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let mark = folder.appendingPathComponent("mark.png")
        try fixture("badge.png").write(to: mark)
        func result(opacity: Double, options: String) async throws -> Data {
            let harness = try await Self.start {
                $0.watermarkFile = mark.path
                $0.watermarkOpacity = opacity
            }
            defer { Task { await harness.stop() } }
            let source = harness.origin.url("/images/coffee.png").absoluteString
            let answer = try await harness.request(Self.signer.signed("/rs:fit:120:120\(options)/plain/\(source)@png"))
            #expect(answer.status == .ok)
            return answer.bytes
        }
        let bare = try await result(opacity: 1, options: "")
        let full = try await result(opacity: 1, options: "/wm:1:ce")
        let none = try await result(opacity: 0, options: "/wm:1:ce")
        let half = try await result(opacity: 0.5, options: "/wm:1:ce")
        #expect(full != bare)
        #expect(none == bare)
        #expect(half != bare && half != full)
    }
}
