import FixtureServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import Trove
import TroveCodec

@testable import TroveServer

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
        // The older names, and a DPR: 192 physical pixels at DPR 1.5 are 128 CSS pixels times 1.5.
        let older = try await harness.request(
            bare, headers: [HTTPField.Name("Width")!: "192", HTTPField.Name("DPR")!: "1.5"])
        #expect(try width(older) == 192)
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

    /// Hints are rounded up onto steps (16 a doubling for widths, quarters for DPRs), so the many values
    /// clients send make a few results: widths 145 to 152 are one result 152 px wide, made once; DPR 1.1
    /// is 1.25; a width past the server's limit is the limit.
    @Test func hintsAreRoundedUpOntoBoundedSteps() async throws {
        let harness = try await Self.start(hints: true)
        defer { Task { await harness.stop() } }
        let bare = Self.signer.signed("/plain/\(harness.origin.url("/images/coffee.png").absoluteString)@png")
        for hint in 145...152 {
            let answer = try await harness.request(bare, headers: [HTTPField.Name("Sec-CH-Width")!: "\(hint)"])
            #expect(try width(answer) == 152, "width \(hint)")
        }
        #expect(try await harness.metric("trove_serve_result_cache_hits_total") == 7)
        let sized = Self.signer.signed(
            "/rs:fit:100:0/plain/\(harness.origin.url("/images/coffee.png").absoluteString)@png")
        let dpr = try await harness.request(sized, headers: [HTTPField.Name("Sec-CH-DPR")!: "1.1"])
        #expect(try width(dpr) == 125)

        #expect(ClientHints.widthStep(31) == 31 && ClientHints.widthStep(33) == 34 && ClientHints.widthStep(200) == 200)
        #expect(ClientHints.widthStep(1000) == 1024 && ClientHints.widthStep(8193) == 8704)
        #expect(ClientHints.dprStep(2.625) == 2.75 && ClientHints.dprStep(1) == 1)
        let widths = Set((1...100_000).map { ClientHints(dprText: nil, widthText: "\($0)", maxWidth: 8192).width })
        #expect(widths.count == 160)
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
