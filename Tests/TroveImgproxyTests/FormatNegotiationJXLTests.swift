import Testing
import Trove
import TroveImgproxy

/// JPEG XL comes after AVIF and WebP, only when listed explicitly and encodable, and is served as image/jxl.
@Suite struct FormatNegotiationJXLTests {
    let all: Set<ImageFormat> = [.avif, .webp, .jxl, .jpeg]

    @Test func jxlComesAfterAVIFAndWebP() {
        #expect(FormatNegotiation.preferredFormat(accept: "image/jxl,image/avif,image/webp", available: all) == .avif)
        #expect(FormatNegotiation.preferredFormat(accept: "image/jxl,image/webp", available: all) == .webp)
        #expect(FormatNegotiation.preferredFormat(accept: "image/jxl,image/*,*/*;q=0.8", available: all) == .jxl)
        #expect(FormatNegotiation.preferredFormat(accept: "image/avif,image/jxl", available: [.jxl, .jpeg]) == .jxl)
    }

    @Test func jxlNeedsAnEncoderAndAPositiveQ() {
        #expect(FormatNegotiation.preferredFormat(accept: "image/jxl", available: [.jpeg, .webp]) == nil)
        #expect(FormatNegotiation.preferredFormat(accept: "image/jxl;q=0,image/*", available: all) == nil)
        #expect(ImageFormat.jxl.mediaType == "image/jxl")
    }
}
