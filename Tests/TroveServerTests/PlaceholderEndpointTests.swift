import FixtureServer
import Foundation
import HTTPTypes
import Testing
import Trove
import TroveCodec
import TrovePlaceholders

@testable import TroveServer

/// Placeholders from the proxy: `/info` answers `thumbhash` and `blurhash`, and the `trove_placeholder`
/// processing option (Trove's own, no imgproxy name) renders one as an image in the format asked for.
@Suite struct PlaceholderEndpointTests {
    static let signer = URLSigner.test

    static func start() async throws -> ServerHarness {
        let origin = try FixtureServer(serving: TestImages.folder, under: "/images/")
        origin.setRoute(
            "/images/orientation6.jpg",
            .file(
                try Data(
                    contentsOf: TestImages.folder.deletingLastPathComponent().appendingPathComponent(
                        "jpeg/orientation6.jpg")),
                contentType: "image/jpeg"))
        return try await ServerHarness.start(origin: origin) { configuration in
            configuration.keys = [signer.key]
            configuration.salts = [signer.salt]
        }
    }

    /// What the server's pipeline computes: the same plugins and its reducing gap of 1, from the file.
    static func expected(_ file: URL, _ kind: PlaceholderKind) async throws -> String {
        var configuration = PipelineConfiguration.memoryOnly
        configuration.shrinkOnLoadReducingGap = ServerConfiguration().pipeline.shrinkOnLoadReducingGap
        return try await ImagePipeline(registry: ServerHarness.registry(), configuration: configuration)
            .placeholder(for: file, kind: kind)
    }

    func get(_ harness: ServerHarness, _ path: String, source: String) async throws -> (
        status: HTTPResponse.Status, body: Data, type: String?
    ) {
        let url = harness.origin.url("/images/\(source)").absoluteString
        let answer =
            path == "/info"
            ? try await harness.request("/info" + Self.signer.signed("/plain/\(url)"))
            : try await harness.request(Self.signer.signed("\(path)/plain/\(url)"))
        return (answer.status, Data(answer.bytes), answer.header(.contentType))
    }

    @Test func infoAnswersBothPlaceholdersOfThePictureAsDisplayed() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let orientation6 = TestImages.folder.deletingLastPathComponent().appendingPathComponent("jpeg/orientation6.jpg")
        for (name, file) in [
            ("coffee.png", TestImages.folder.appendingPathComponent("coffee.png")), ("orientation6.jpg", orientation6)
        ] {
            let (status, body, _) = try await get(harness, "/info", source: name)
            #expect(status == .ok, "\(name)")
            let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            #expect(json["thumbhash"] as? String == (try await Self.expected(file, .thumbHash)), "\(name)")
            #expect(json["blurhash"] as? String == (try await Self.expected(file, .blurHash())), "\(name)")
            #expect(json["width"] is Int && json["format"] is String)
        }
    }

    @Test func theOptionRendersTheThumbHashInAnyFormat() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let hash = try await Self.expected(TestImages.folder.appendingPathComponent("coffee.png"), .thumbHash)
        let decoded = try ThumbHash.decode(try ThumbHash.hash(fromBase64: hash))

        let png = try await get(harness, "/trove_placeholder:thumbhash/f:png", source: "coffee.png")
        #expect(png.status == .ok && png.type == "image/png")
        let image = try PNGDecoder().decode(png.body, limits: .default).convertedToRGBA8()
        #expect(image.width == decoded.width && image.height == decoded.height)
        #expect(image.pixels == decoded.rgba)

        let webp = try await get(harness, "/trove_placeholder:thumbhash/f:webp", source: "coffee.png")
        #expect(webp.status == .ok && webp.type == "image/webp" && webp.body.prefix(4) == Data("RIFF".utf8))
        let jpeg = try await get(harness, "/trove_placeholder:thumbhash/rs:fit:64:64/el:1/f:jpg", source: "coffee.png")
        #expect(jpeg.status == .ok && jpeg.type == "image/jpeg" && jpeg.body.prefix(2) == Data([0xFF, 0xD8]))
        let enlarged = try await get(
            harness, "/trove_placeholder:thumbhash/rs:fit:64:64/el:1/f:png", source: "coffee.png")
        let big = try PNGDecoder().decode(enlarged.body, limits: .default)
        #expect(big.width == 64 && big.height == Int((64.0 * Double(decoded.height) / Double(decoded.width)).rounded()))
    }

    @Test func aBlurHashRendersAtTheThumbHashsShape() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let file = TestImages.folder.appendingPathComponent("coffee.png")
        let blur = try await Self.expected(file, .blurHash(x: 3, y: 2))
        let shape = try ThumbHash.decode(try ThumbHash.hash(fromBase64: try await Self.expected(file, .thumbHash)))
        let answer = try await get(harness, "/trove_placeholder:blurhash:3:2/f:png", source: "coffee.png")
        #expect(answer.status == .ok)
        let image = try PNGDecoder().decode(answer.body, limits: .default).convertedToRGBA8()
        // coffee.png is 3:2, so its ThumbHash decodes at 32x21 (or near): the BlurHash takes that shape.
        #expect(image.width == 32 && abs(image.height - shape.height) <= 1)
        #expect(image.pixels == (try BlurHash.decode(blur, width: image.width, height: image.height)))
    }

    @Test func aBadKindIsA400NamingTheForms() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        for option in ["trove_placeholder:sparkle", "trove_placeholder:blurhash:4", "trove_placeholder:blurhash:0:3"] {
            let answer = try await get(harness, "/\(option)", source: "coffee.png")
            #expect(answer.status == .badRequest, "\(option)")
            #expect(
                String(decoding: answer.body, as: UTF8.self).contains("give thumbhash, blurhash, or blurhash:X:Y"),
                "\(option): \(String(decoding: answer.body, as: UTF8.self))")
        }
    }
}
