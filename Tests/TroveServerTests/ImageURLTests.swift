import FixtureServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import Trove
import TroveAVIF
import TroveCodec
import TroveJPEG
import TroveServer
import TroveWebP

/// imgproxy URLs signed in the test, answered by a real server in front of a loopback origin; every
/// answer is decoded and checked.
@Suite struct ImageURLTests {
    static let signer = URLSigner.test

    static func startSigned(_ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> ServerHarness {
        let origin = try FixtureServer(serving: TestImages.folder, under: "/images/")
        return try await ServerHarness.start(origin: origin) { configuration in
            configuration.keys = [signer.key]
            configuration.salts = [signer.salt]
            configuration.presets = ["thumb": "rs:fill:64:64"]
            configure(&configuration)
        }
    }

    func source(_ harness: ServerHarness, _ name: String) -> String {
        harness.origin.url("/images/\(name)").absoluteString
    }

    func decode(_ response: TestClient.Response) throws -> Image {
        let registry = try ServerHarness.registry()
        let data = response.bytes
        guard let decoder = registry.decoder(for: data) else {
            Issue.record("the answer is not an image: \(response.status) \(response.text.prefix(120))")
            throw CancellationError()
        }
        return try decoder.decode(data, limits: .default)
    }

    @Test func resizeCropGravityQualityFormatAndPreset() async throws {
        let harness = try await Self.startSigned()
        defer { Task { await harness.stop() } }
        let chelsea = source(harness, "chelsea.png")

        let fit = try await harness.request(Self.signer.signed("/rs:fit:100:100/plain/\(chelsea)@png"))
        #expect(fit.status == .ok)
        #expect(fit.header(.contentType) == "image/png")
        let fitImage = try decode(fit)
        #expect(fitImage.width == 100 && fitImage.height == 67)

        let fill = try decode(try await harness.request(Self.signer.signed("/rs:fill:120:80/plain/\(chelsea)@png")))
        #expect(fill.width == 120 && fill.height == 80)

        // A north-west crop of a PNG, answered as PNG, is exactly the source's top-left pixels.
        let crop = try decode(try await harness.request(Self.signer.signed("/c:100:50/g:nowe/plain/\(chelsea)@png")))
        #expect(crop.width == 100 && crop.height == 50)
        let original = try PNGDecoder().decode(
            Data(contentsOf: TestImages.folder.appendingPathComponent("chelsea.png")),
            limits: .default
        ).convertedToRGBA8()
        let cropped = crop.convertedToRGBA8()
        var same = true
        for y in 0..<50 where same {
            let sourceRow = original.pixels[(y * original.bytesPerRow)..<(y * original.bytesPerRow + 400)]
            let croppedRow = cropped.pixels[(y * cropped.bytesPerRow)..<(y * cropped.bytesPerRow + 400)]
            same = sourceRow.elementsEqual(croppedRow)
        }
        #expect(same)

        let low = try await harness.request(Self.signer.signed("/rs:fit:300:300/q:20/plain/\(chelsea)@jpg"))
        let high = try await harness.request(Self.signer.signed("/rs:fit:300:300/q:95/plain/\(chelsea)@jpg"))
        #expect(low.header(.contentType) == "image/jpeg" && high.header(.contentType) == "image/jpeg")
        #expect(try decode(low).width == 300 && decode(high).width == 300)
        #expect(low.bytes.count * 2 < high.bytes.count)

        let webp = try await harness.request(Self.signer.signed("/rs:fit:80:80/f:webp/plain/\(chelsea)"))
        #expect(webp.header(.contentType) == "image/webp")
        #expect(try decode(webp).width == 80)
        #expect(webp.header(.vary) == nil)

        let avif = try await harness.request(Self.signer.signed("/rs:fit:60:60/plain/\(chelsea)@avif"))
        #expect(avif.header(.contentType) == "image/avif")
        #expect(try decode(avif).width == 60)

        let preset = try decode(try await harness.request(Self.signer.signed("/pr:thumb/plain/\(chelsea)@png")))
        #expect(preset.width == 64 && preset.height == 64)

        // The source as base64url, the format as an extension.
        let encoded = Data(chelsea.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let base64 = try await harness.request(Self.signer.signed("/rs:fit:50:50/\(encoded).png"))
        #expect(base64.header(.contentType) == "image/png")
        #expect(try decode(base64).width == 50)
    }

    @Test func signaturesAndUnknownOptions() async throws {
        let harness = try await Self.startSigned()
        defer { Task { await harness.stop() } }
        let path = "/rs:fit:100:100/plain/\(source(harness, "chelsea.png"))@png"

        let wrongKey = URLSigner(key: "00" + Self.signer.key.dropFirst(2), salt: Self.signer.salt)
        #expect(try await harness.request(wrongKey.signed(path)).status == .forbidden)
        #expect(try await harness.request("/insecure" + path).status == .forbidden)
        #expect(try await harness.request(path).status == .forbidden)
        // Nothing reached the origin for the refused URLs.
        #expect(harness.origin.requests.isEmpty)

        let unknown = try await harness.request(
            Self.signer.signed("/rs:fit:100:100/sharpen_more:3/plain/\(source(harness, "chelsea.png"))@png"))
        #expect(unknown.status == .badRequest)
        #expect(unknown.text.contains("sharpen_more"))
        #expect(unknown.header(.contentType)?.hasPrefix("text/plain") == true)
        // The text quotes a little of the URL: browsers must not sniff it into anything else.
        #expect(unknown.header(.xContentTypeOptions) == "nosniff")
    }

    /// A URL with `exp:` stops working at that moment: its result is never kept by the server, caches in
    /// front are told to keep it no longer, and past it the answer is 404.
    @Test func expiringURLsAreNotKeptPastTheirExpiry() async throws {
        let harness = try await Self.startSigned()
        defer { Task { await harness.stop() } }
        let chelsea = source(harness, "chelsea.png")
        let inAnHour = Int(Date().timeIntervalSince1970) + 3600
        let expiring = Self.signer.signed("/rs:fit:50:50/exp:\(inAnHour)/plain/\(chelsea)@png")
        for _ in 0..<2 {
            let answer = try await harness.request(expiring)
            #expect(answer.status == .ok)
            let maxAge = try #require(answer.header(.cacheControl).flatMap { Int($0.split(separator: "=").last ?? "") })
            #expect((3590...3600).contains(maxAge))
        }
        #expect(try await harness.metric("trove_serve_result_cache_hits_total") == 0)
        // The same without exp: the second request is a result-cache hit (the control).
        let lasting = Self.signer.signed("/rs:fit:50:50/plain/\(chelsea)@png")
        for _ in 0..<2 { #expect(try await harness.request(lasting).status == .ok) }
        #expect(try await harness.metric("trove_serve_result_cache_hits_total") == 1)
        let past = Self.signer.signed("/rs:fit:50:50/exp:\(inAnHour - 7200)/plain/\(chelsea)@png")
        #expect(try await harness.request(past).status == .notFound)
    }

    /// Bytes cached by an unguarded fetch (here a plain pipeline on the same cache directory, as `trove get`
    /// would) for a source whose host is a loopback address are not served by a proxy that refuses loopback.
    @Test func aCachedSourceOnAForbiddenAddressIsNotServed() async throws {
        let harness = try await Self.startSigned { $0.allowLoopbackSources = false }
        defer { Task { await harness.stop() } }
        let url = harness.origin.url("/images/chelsea.png")
        let unguarded = try DataPipeline(configuration: PipelineConfiguration(cacheDirectory: harness.cacheDirectory))
        #expect(try await unguarded.data(for: url).source == .network)
        let answer = try await harness.request(Self.signer.signed("/rs:fit:50:50/plain/\(url.absoluteString)@png"))
        #expect(answer.status == .notFound)
        #expect(harness.origin.requestCount(for: "/images/chelsea.png") == 1)
    }

    @Test func aHostNameCachedByAnUnguardedFetchIsNotServedAndResolvesToARefusal() async throws {
        // internal.test points at loopback, which this server refuses; an unguarded `trove get` on the same
        // directory stored its bytes under the URL's own key, as if fetched before.
        let resolver = FixedResolver(["internal.test": "127.0.0.1"])
        let harness = try await ServerHarness.start(resolver: resolver) {
            $0.keys = [Self.signer.key]
            $0.salts = [Self.signer.salt]
            $0.allowLoopbackSources = false
        }
        defer { Task { await harness.stop() } }
        let url = URL(string: "http://internal.test:\(harness.origin.port!)/images/chelsea.png")!
        var configuration = PipelineConfiguration(cacheDirectory: harness.cacheDirectory)
        configuration.hasher = "sha256"
        let unguarded = try #require(try configuration.makeDiskCache(registry: .standard))
        let bytes = try Data(contentsOf: TestImages.folder.appendingPathComponent("chelsea.png"))
        try await unguarded.store(bytes, forKey: CacheKey.normalized(url))
        await unguarded.flush()

        let answer = try await harness.request(Self.signer.signed("/rs:fit:50:50/plain/\(url.absoluteString)@png"))
        #expect(answer.status == .notFound)
        #expect(resolver.asked == ["internal.test"])
        #expect(harness.origin.requests.isEmpty)
    }

    /// A server that cannot listen (its port is taken) fails to start instead of waiting for ever.
    @Test func aTakenPortFailsTheStart() async throws {
        let harness = try await Self.startSigned()
        defer { Task { await harness.stop() } }
        var configuration = ServerConfiguration()
        configuration.port = harness.port
        configuration.pipeline.cacheDirectory = harness.cacheDirectory
        var logger = Logger(label: "trove.serve.test")
        logger.logLevel = .critical
        let second = try ImageProxyServer(
            configuration: configuration, registry: try ServerHarness.registry(),
            logger: logger)
        await #expect(throws: (any Error).self) { try await second.start() }
        await second.stop()
    }

    @Test func formatNegotiationByAccept() async throws {
        let harness = try await Self.startSigned()
        defer { Task { await harness.stop() } }
        let path = Self.signer.signed("/rs:fit:40:40/plain/\(source(harness, "chelsea.png"))")

        let avif = try await harness.request(path, headers: [.accept: "image/avif,image/webp,*/*"])
        #expect(avif.header(.contentType) == "image/avif")
        #expect(avif.header(.vary) == "Accept")
        #expect(try decode(avif).sourceFormat == .avif)

        let webp = try await harness.request(path, headers: [.accept: "image/webp,*/*"])
        #expect(webp.header(.contentType) == "image/webp")
        #expect(webp.header(.vary) == "Accept")
        #expect(try decode(webp).sourceFormat == .webp)

        // Neither accepted: the source's own format, still varying by Accept.
        let png = try await harness.request(path, headers: [.accept: "image/png,image/*"])
        #expect(png.header(.contentType) == "image/png")
        #expect(png.header(.vary) == "Accept")
        #expect(try decode(png).width == 40)
        // Three formats, three results: three transforms of one source fetched once.
        #expect(harness.origin.requestCount(for: "/images/chelsea.png") == 1)
    }

    @Test func entityTagsConditionalRequestsAndHead() async throws {
        let harness = try await Self.startSigned()
        defer { Task { await harness.stop() } }
        let path = Self.signer.signed("/rs:fit:90:90/plain/\(source(harness, "chelsea.png"))@png")

        let first = try await harness.request(path)
        #expect(first.status == .ok)
        let tag = try #require(first.header(.eTag))
        #expect(tag.hasPrefix("\"") && !tag.hasPrefix("W/"))
        #expect(first.header(.cacheControl) == "public, max-age=31536000")
        #expect(first.header(.contentLength) == String(first.bytes.count))

        for condition in [tag, "\"nope\", W/\(tag)", "*"] {
            let again = try await harness.request(path, headers: [.ifNoneMatch: condition])
            #expect(again.status == .notModified, "If-None-Match: \(condition)")
            #expect(again.bytes.isEmpty)
            #expect(again.header(.eTag) == tag)
        }
        #expect(try await harness.request(path, headers: [.ifNoneMatch: "\"other\""]).status == .ok)

        let head = try await harness.request(path, method: .head)
        #expect(head.status == .ok)
        #expect(head.bytes.isEmpty)
        #expect(head.header(.contentLength) == String(first.bytes.count))
        #expect(head.header(.eTag) == tag)
        #expect(head.header(.contentType) == "image/png")
    }

    @Test func errorsAreShortAndSayNothingOfTheOrigin() async throws {
        let harness = try await Self.startSigned()
        defer { Task { await harness.stop() } }
        harness.origin.setRoute(
            "/secret.png", .response(status: 500, headers: [:], body: Data("db password is hunter2".utf8)))
        harness.origin.setRoute("/text.png", .file(Data("internal /var/lib/app/config".utf8), contentType: "image/png"))

        let missing = try await harness.request(
            Self.signer.signed("/rs:fit:10:10/plain/\(harness.origin.url("/none.png"))@png"))
        #expect(missing.status == .notFound)
        #expect(missing.header(.cacheControl) == "public, max-age=10")

        let failing = try await harness.request(
            Self.signer.signed("/rs:fit:10:10/plain/\(harness.origin.url("/secret.png"))@png"))
        #expect(failing.status.code == 502)
        #expect(!failing.text.contains("hunter2"))
        #expect(failing.header(.cacheControl) == "no-store")

        let notImage = try await harness.request(
            Self.signer.signed("/rs:fit:10:10/plain/\(harness.origin.url("/text.png"))@png"))
        #expect(notImage.status.code == 422)
        #expect(!notImage.text.contains("/var/lib"))
        #expect(!notImage.text.contains(harness.cacheDirectory.path))
    }
}
