import Testing
import TroveCore

@Suite struct ImageFormatTests {
    @Test(arguments: [
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], ImageFormat.png),
        ([0xFF, 0xD8, 0xFF, 0xE0, 0, 16], .jpeg),
        (Array("GIF89a".utf8) + [1, 0], .gif),
        (Array("GIF87a".utf8), .gif),
        (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8), .webp),
        (Array("BM".utf8) + [0, 0, 0, 0, 0, 0], .bmp),
    ] as [([UInt8], ImageFormat)])
    func sniffsMagicBytes(bytes: [UInt8], expected: ImageFormat) {
        #expect(ImageFormat(sniffing: bytes) == expected)
    }

    @Test func unknownForTextShortAndNearMisses() {
        #expect(ImageFormat(sniffing: Array("{\"json\": true}".utf8)) == .unknown)
        #expect(ImageFormat(sniffing: [0x89, 0x50, 0x4E]) == .unknown)  // truncated PNG signature
        #expect(ImageFormat(sniffing: Array("RIFF....WAVE".utf8)) == .unknown)  // RIFF but not WebP
        #expect(ImageFormat(sniffing: [UInt8]()) == .unknown)
    }
}
