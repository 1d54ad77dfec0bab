import Testing
import Trove
import TroveImgproxy

@Suite struct FormatNegotiationTests {
    let all: Set<ImageFormat> = [.avif, .webp, .jpeg, .png]

    @Test func prefersAVIFThenWebPWhenListedExplicitly() {
        #expect(FormatNegotiation.preferredFormat(accept: "image/avif,image/webp", available: all) == .avif)
        #expect(FormatNegotiation.preferredFormat(accept: "image/webp,image/avif", available: all) == .avif)
        #expect(FormatNegotiation.preferredFormat(accept: "image/webp", available: all) == .webp)
        // A browser's image Accept header.
        #expect(
            FormatNegotiation.preferredFormat(
                accept: "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", available: all) == .avif)
        #expect(FormatNegotiation.preferredFormat(accept: " Image/WebP ; q=0.5 ", available: all) == .webp)
    }

    @Test func wildcardsAndAbsentHeadersKeepTheSourceFormat() {
        #expect(FormatNegotiation.preferredFormat(accept: nil, available: all) == nil)
        #expect(FormatNegotiation.preferredFormat(accept: "", available: all) == nil)
        #expect(FormatNegotiation.preferredFormat(accept: "image/*", available: all) == nil)
        #expect(FormatNegotiation.preferredFormat(accept: "*/*", available: all) == nil)
        #expect(FormatNegotiation.preferredFormat(accept: "image/png,image/jpeg", available: all) == nil)
    }

    @Test func qZeroRefuses() {
        #expect(FormatNegotiation.preferredFormat(accept: "image/avif;q=0,image/webp", available: all) == .webp)
        #expect(FormatNegotiation.preferredFormat(accept: "image/avif;q=0.0, image/webp;q=0", available: all) == nil)
        #expect(FormatNegotiation.preferredFormat(accept: "image/avif, image/avif;q=0", available: all) == nil)
        #expect(FormatNegotiation.preferredFormat(accept: "image/avif;q=abc", available: all) == nil)
    }

    @Test func onlyFormatsWithEncodersAreChosen() {
        #expect(FormatNegotiation.preferredFormat(accept: "image/avif,image/webp", available: [.webp, .jpeg]) == .webp)
        #expect(FormatNegotiation.preferredFormat(accept: "image/avif,image/webp", available: [.jpeg]) == nil)
    }
}
