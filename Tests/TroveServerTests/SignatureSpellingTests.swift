import Foundation
import Testing

/// One signed URL has one spelling: its signature padded with `=` (any number of them) is refused with 403,
/// as imgproxy refuses it, before and after the result is kept, so it can mint neither a result-cache key nor
/// a transform.
@Suite struct SignatureSpellingTests {
    @Test func paddedSignaturesAreRefusedBeforeAndAfterTheResultIsKept() async throws {
        let harness = try await ImageURLTests.startSigned()
        defer { Task { await harness.stop() } }
        let signed = URLSigner.test.signed("/rs:fit:30:30/plain/\(harness.origin.url("/images/chelsea.png"))@png")
        let slash = try #require(signed.dropFirst().firstIndex(of: "/"))
        let signature = String(signed[..<slash]), rest = String(signed[slash...])
        let padded = ["=", "==", String(repeating: "=", count: 64)].map { signature + $0 + rest }

        for path in padded {
            let refused = try await harness.request(path)
            #expect(refused.status == .forbidden, "\(path.prefix(60))")
            #expect(refused.text.hasPrefix("invalid signature"))
        }
        #expect(try await harness.request(signed).status == .ok)
        // Kept now: the padded spellings still find nothing and are still refused, on every path to an answer.
        for path in padded {
            #expect(try await harness.request(path).status == .forbidden)
            let connection = try RawConnection(port: harness.port)
            #expect(try await connection.exchange(path).statusLine == "HTTP/1.1 403 Forbidden")
        }
        #expect(try await harness.metric("trove_serve_result_cache_hits_total") == 0)
        #expect(try await harness.metric("trove_serve_requests_total", labels: "status=\"403\"") == 9)
    }
}
