import Testing
import Trove
import TroveImgproxy

@Suite struct ImgproxyEncodingTests {
    @Test func qualityBecomesEncodingOptionsOnlyWhenGiven() throws {
        let base = EncodingOptions(quality: 0.85, compressionLevel: 3, lossless: false, speed: 8)
        let withQuality = try ImgproxyURL.parse(path: "/_/q:42/plain/https://example.com/a.jpg", signature: .disabled)
        #expect(
            withQuality.encodingOptions(base: base)
                == EncodingOptions(quality: 0.42, compressionLevel: 3, lossless: false, speed: 8))
        let without = try ImgproxyURL.parse(path: "/_/q:0/plain/https://example.com/a.jpg", signature: .disabled)
        #expect(without.encodingOptions(base: base) == nil)
    }
}
