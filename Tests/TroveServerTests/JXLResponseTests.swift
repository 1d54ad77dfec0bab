import Foundation
import HTTPTypes
import Testing
import Trove
import TroveJXL
import TroveServer

/// `trove serve` answers in JPEG XL, as image/jxl, when the URL asks for it or Accept lists it after
/// neither AVIF nor WebP; the body decodes to the requested size.
@Suite struct JXLResponseTests {
    @Test func jxlIsServedAsImageJXL() async throws {
        let harness = try await ImageURLTests.startSigned()
        defer { Task { await harness.stop() } }
        let source = harness.origin.url("/images/chelsea.png").absoluteString
        let signer = ImageURLTests.signer

        let named = try await harness.request(signer.signed("/rs:fit:50:50/plain/\(source)@jxl"))
        #expect(named.header(.contentType) == "image/jxl")
        let image = try JXLDecoder().decode(Data(named.bytes), limits: .default)
        #expect(image.width == 50 || image.height == 50)

        let path = signer.signed("/rs:fit:40:40/plain/\(source)")
        let negotiated = try await harness.request(path, headers: [.accept: "image/jxl,image/*,*/*;q=0.8"])
        #expect(negotiated.header(.contentType) == "image/jxl")
        #expect(negotiated.header(.vary) == "Accept")
        #expect(try JXLDecoder().decode(Data(negotiated.bytes), limits: .default).sourceFormat == .jxl)

        let avif = try await harness.request(path, headers: [.accept: "image/jxl,image/avif"])
        #expect(avif.header(.contentType) == "image/avif")
    }
}
