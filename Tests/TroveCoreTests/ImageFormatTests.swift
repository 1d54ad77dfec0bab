import Foundation
import Testing
import TroveCore

@Suite struct ImageFormatTests {
    @Test(
        arguments: [
            ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], ImageFormat.png),
            ([0xFF, 0xD8, 0xFF, 0xE0, 0, 16], .jpeg),
            (Array("GIF89a".utf8) + [1, 0], .gif),
            (Array("GIF87a".utf8), .gif),
            (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8), .webp),
            ([0, 0, 0, 0x20] + Array("ftypavif".utf8), .avif),
            ([0, 0, 0, 0x1C] + Array("ftypavis".utf8), .avif),
            ([0, 0, 0, 0x18] + Array("ftypheic".utf8), .heic),
            (Array("BM".utf8) + [0, 0, 0, 0, 0, 0], .bmp)
        ] as [([UInt8], ImageFormat)])
    func wellKnownSignaturesAreNamed(bytes: [UInt8], expected: ImageFormat) {
        #expect(ImageFormat.wellKnown(sniffing: bytes) == expected)
    }

    @Test func textShortAndNearMissesAreNotNamed() {
        #expect(ImageFormat.wellKnown(sniffing: Array("{\"json\": true}".utf8)) == nil)
        #expect(ImageFormat.wellKnown(sniffing: [0x89, 0x50, 0x4E]) == nil)  // truncated PNG signature
        #expect(ImageFormat.wellKnown(sniffing: Array("RIFF....WAVE".utf8)) == nil)  // RIFF but not WebP
        #expect(ImageFormat.wellKnown(sniffing: [0, 0, 0, 0x20] + Array("ftypmp42".utf8)) == nil)  // a video
        #expect(ImageFormat.wellKnown(sniffing: [UInt8]()) == nil)
    }

    @Test func formatsAreAnOpenCaseInsensitiveSet() throws {
        let qoi: ImageFormat = "QOI"
        #expect(qoi.rawValue == "qoi")
        #expect(qoi == ImageFormat(rawValue: "qoi"))
        #expect(qoi.mediaType == "image/qoi")
        #expect(ImageFormat.jpeg.mediaType == "image/jpeg" && ImageFormat.jpeg.fileExtension == "jpg")
        #expect(ImageFormat(fileExtension: "JPG") == .jpeg)
        #expect(ImageFormat(fileExtension: "avif") == .avif)
    }

    @Test func codableAsAPlainString() throws {
        let data = try JSONEncoder().encode(["out": ImageFormat.webp, "mine": "qoi"])
        #expect(String(decoding: data, as: UTF8.self).contains("\"webp\""))
        let back = try JSONDecoder().decode([String: ImageFormat].self, from: data)
        #expect(back == ["out": .webp, "mine": "qoi"])
        #expect(String(decoding: try JSONEncoder().encode(ImageFormat.avif), as: UTF8.self) == "\"avif\"")
        #expect(try JSONDecoder().decode(ImageFormat.self, from: Data("\"WebP\"".utf8)) == .webp)
    }
}
