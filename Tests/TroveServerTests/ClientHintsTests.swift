import FixtureServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Trove
import TroveCodec
import TroveServer

/// Client hints through a real server: with `--enable-client-hints`, `Sec-CH-DPR`/`DPR` and
/// `Sec-CH-Width`/`Width` give a URL's default dpr and width, the answer varies by them, and they are part of
/// the result's cache key; without it they change nothing.
@Suite struct ClientHintsTests {
    static let signer = URLSigner.test

    static func start(hints: Bool) async throws -> ServerHarness {
        let origin = try FixtureServer(serving: TestImages.folder, under: "/images/")
        return try await ServerHarness.start(origin: origin) { configuration in
            configuration.keys = [signer.key]
            configuration.salts = [signer.salt]
            configuration.clientHints = hints
        }
    }

    func width(_ answer: TestClient.Response) throws -> Int {
        try PNGDecoder().decode(answer.bytes, limits: .default).width
    }

    @Test func hintsSetTheDefaultWidthAndDPR() async throws {
        let harness = try await Self.start(hints: true)
        defer { Task { await harness.stop() } }
        // coffee.png is 600 x 400.
        let source = harness.origin.url("/images/coffee.png").absoluteString
        let bare = Self.signer.signed("/plain/\(source)@png")

        let plain = try await harness.request(bare)
        #expect(try width(plain) == 600)
        #expect(plain.header(.vary) == "Sec-CH-DPR, DPR, Sec-CH-Width, Width")

        let hinted = try await harness.request(bare, headers: [HTTPField.Name("Sec-CH-Width")!: "200"])
        #expect(try width(hinted) == 200)
        // The older names, and a DPR: 150 physical pixels at DPR 1.5 are 100 CSS pixels times 1.5.
        let older = try await harness.request(
            bare, headers: [HTTPField.Name("Width")!: "150", HTTPField.Name("DPR")!: "1.5"])
        #expect(try width(older) == 150)
        // The URL's own width wins over the hint; the DPR hint still multiplies it.
        let sized = Self.signer.signed("/rs:fit:100:0/plain/\(source)@png")
        let doubled = try await harness.request(sized, headers: [HTTPField.Name("Sec-CH-DPR")!: "2"])
        #expect(try width(doubled) == 200)
        #expect(try width(try await harness.request(sized)) == 100)
        // Asked again, each is answered from the result cache under its own hints.
        #expect(try width(try await harness.request(bare, headers: [HTTPField.Name("Sec-CH-Width")!: "200"])) == 200)
        #expect(try width(try await harness.request(bare)) == 600)
        // A width past the server's limit is taken as the limit, not refused: fit does not enlarge 600 px.
        let huge = try await harness.request(bare, headers: [HTTPField.Name("Sec-CH-Width")!: "100000"])
        #expect(huge.status == .ok)
        #expect(try width(huge) == 600)
        // Out-of-range hints count as not sent.
        let wild = try await harness.request(sized, headers: [HTTPField.Name("Sec-CH-DPR")!: "40"])
        #expect(try width(wild) == 100)
    }

    @Test func withoutTheSettingHintsChangeNothing() async throws {
        let harness = try await Self.start(hints: false)
        defer { Task { await harness.stop() } }
        let source = harness.origin.url("/images/coffee.png").absoluteString
        let answer = try await harness.request(
            Self.signer.signed("/rs:fit:100:0/plain/\(source)@png"),
            headers: [HTTPField.Name("Sec-CH-DPR")!: "2", HTTPField.Name("Sec-CH-Width")!: "50"])
        #expect(try width(answer) == 100)
        #expect(answer.header(.vary) == nil)
    }
}
