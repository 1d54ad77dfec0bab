import FixtureServer
import Foundation
import Testing

@testable import TroveServer

/// A source that failed for a lasting reason is remembered and refused without a fetch, with the status the
/// first refusal had: a damaged image stays a 422 (not a 404 saying to try later), a missing one a 404.
@Suite struct RememberedFailureTests {
    @Test func aRememberedFailureKeepsTheStatusOfTheFirst() async throws {
        var damaged = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]) + Data("JFIF".utf8)
        damaged.append(Data(repeating: 0x5A, count: 200))
        let origin = FixtureServer(routes: [
            "/damaged.jpg": .file(damaged, contentType: "image/jpeg"),
            // A client error whose answer says it holds for an hour is remembered too, and stays a 502.
            "/refused.jpg": .response(status: 400, headers: ["Cache-Control": "max-age=3600"], body: Data("no".utf8))
        ])
        let signer = URLSigner.test
        let harness = try await ServerHarness.start(origin: origin) {
            $0.keys = [signer.key]
            $0.salts = [signer.salt]
        }
        defer { Task { await harness.stop() } }

        for (source, status) in [("/damaged.jpg", 422), ("/missing.jpg", 404), ("/refused.jpg", 502)] {
            let first = try await harness.request(signer.signed("/rs:fit:100:100/plain/\(origin.url(source))@png"))
            let again = try await harness.request(signer.signed("/rs:fit:50:50/plain/\(origin.url(source))@png"))
            #expect(first.status.code == status, "\(source): \(first.status) \(first.text)")
            #expect(again.status.code == status, "\(source): \(again.status) \(again.text)")
            #expect(again.text.contains("as a recent try found"), "\(source): \(again.text)")
            #expect(origin.requestLog(for: source).count == 1, "\(source) was fetched again")
        }
    }

    @Test func aRememberedRefusalSaysWhyAgain() async throws {
        var damaged = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]) + Data("JFIF".utf8)
        damaged.append(Data(repeating: 0x5A, count: 200))
        let origin = FixtureServer(routes: [
            "/huge.png": .file(LimitsTests.hugePNG(width: 10_000, height: 6000), contentType: "image/png"),
            "/damaged.jpg": .file(damaged, contentType: "image/jpeg")
        ])
        let signer = URLSigner.test
        let harness = try await ServerHarness.start(origin: origin) {
            $0.keys = [signer.key]
            $0.salts = [signer.salt]
        }
        defer { Task { await harness.stop() } }

        for source in ["/huge.png", "/damaged.jpg"] {
            let first = try await harness.request(signer.signed("/rs:fit:100:100/plain/\(origin.url(source))@png"))
            let again = try await harness.request(signer.signed("/rs:fit:50:50/plain/\(origin.url(source))@png"))
            #expect(first.status.code == 422 && again.status.code == 422, "\(source): \(again.text)")
            // The same words, not "not an image this server can decode" for a picture that is only too large.
            #expect(again.text == first.text.dropLast() + ", as a recent try found\n", "\(source)")
            #expect(origin.requestLog(for: source).count == 1, "\(source) was fetched again")
        }
    }
}
