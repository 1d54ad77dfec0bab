import Foundation
import Testing
import TroveCodec
import TroveCore
import TroveSupport
import TroveTestSupport

@Suite struct PNGEncoderTests {
    let encoder = PNGEncoder()
    let decoder = PNGDecoder()

    static func rgba(width: Int, height: Int, opaque: Bool) -> Image {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                pixels[i] = UInt8(truncatingIfNeeded: x * 7 + y)
                pixels[i + 1] = UInt8(truncatingIfNeeded: y * 13)
                pixels[i + 2] = UInt8(truncatingIfNeeded: (x ^ y) * 5)
                pixels[i + 3] = opaque ? 255 : UInt8(truncatingIfNeeded: x * 31 + y * 3)
            }
        }
        return Image(width: width, height: height, pixelFormat: .rgba8, pixels: pixels)
    }

    /// Color type byte from the IHDR of an encoded file.
    func colorType(_ png: Data) -> UInt8 { png[png.startIndex + 25] }

    @Test func identity() {
        #expect(encoder.name == "png")
        #expect(encoder.format == .png)
    }

    @Test func rgbaWithVariedAlphaRoundTripsAsColorType6() throws {
        let image = Self.rgba(width: 37, height: 23, opaque: false)
        let png = try encoder.encode(image, options: EncodingOptions())
        #expect(colorType(png) == 6)
        let decoded = try decoder.decode(png, limits: .default)
        #expect(decoded.width == 37 && decoded.height == 23)
        #expect(decoded.pixels == image.pixels)
    }

    @Test func opaqueRGBARoundTripsAsColorType2() throws {
        let image = Self.rgba(width: 50, height: 9, opaque: true)
        let png = try encoder.encode(image, options: EncodingOptions())
        #expect(colorType(png) == 2)
        #expect(try decoder.decode(png, limits: .default).pixels == image.pixels)
    }

    @Test func gray8RoundTripsAsColorType0() throws {
        let gray = (0..<(19 * 11)).map { UInt8(truncatingIfNeeded: $0 * 3) }
        let image = Image(width: 19, height: 11, pixelFormat: .gray8, pixels: gray)
        let png = try encoder.encode(image, options: EncodingOptions())
        #expect(colorType(png) == 0)
        let decoded = try decoder.decode(png, limits: .default)
        #expect(decoded.pixels == image.convertedToRGBA8().pixels)
    }

    @Test func paddedRowsAreEncodedWithoutThePadding() throws {
        let packed = Self.rgba(width: 5, height: 4, opaque: false)
        var padded = [UInt8]()
        for y in 0..<4 { padded += packed.pixels[y * 20..<(y + 1) * 20] + [1, 2, 3, 4, 5, 6] }
        let image = Image(width: 5, height: 4, pixelFormat: .rgba8, bytesPerRow: 26, pixels: padded)
        #expect(
            try decoder.decode(try encoder.encode(image, options: EncodingOptions()), limits: .default).pixels
                == packed.pixels)
    }

    @Test func suiteImagesSurviveDecodeEncodeDecode() throws {
        for name in ["basn6a08", "basn3p08", "basi2c16", "tbbn3p08", "PngSuite"] {
            let image = try decoder.decode(try Fixtures.pngSuite(name), limits: .default)
            let again = try decoder.decode(try encoder.encode(image, options: EncodingOptions()), limits: .default)
            #expect(again.pixels == image.pixels, "\(name)")
        }
    }

    @Test func outputStartsWithSignatureAndCRCValidIHDR() throws {
        let image = Self.rgba(width: 300, height: 2, opaque: false)
        let png = [UInt8](try encoder.encode(image, options: EncodingOptions()))
        #expect(Array(png[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(Array(png[8..<16]) == [0, 0, 0, 13] + Array("IHDR".utf8))
        #expect(Array(png[16..<29]) == [0, 0, 1, 44, 0, 0, 0, 2, 8, 6, 0, 0, 0])
        let storedCRC = png[29..<33].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        #expect(storedCRC == png[12..<29].withUnsafeBytes { CRC32.checksum($0) })
        #expect(Array(png.suffix(12)) == [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82])
    }

    @Test func higherLevelIsNotBiggerOnAGradient() throws {
        var pixels = [UInt8]()
        for y in 0..<128 { for x in 0..<128 { pixels += [UInt8(x * 2), UInt8(y * 2), UInt8((x + y) & 255), 255] } }
        let gradient = Image(width: 128, height: 128, pixelFormat: .rgba8, pixels: pixels)
        let fast = try encoder.encode(gradient, options: EncodingOptions(compressionLevel: 1))
        let best = try encoder.encode(gradient, options: EncodingOptions(compressionLevel: 9))
        #expect(best.count <= fast.count)
        #expect(fast.count < pixels.count / 4)  // the filters make a gradient very compressible
        #expect(try decoder.decode(best, limits: .default).pixels == pixels)
    }

    @Test func invalidInputsAreRefused() throws {
        let tooHigh = TroveError.encodingFailed(format: .png, reason: "compression level 10 is out of range 0...9")
        #expect(throws: tooHigh) {
            try encoder.encode(
                Self.rgba(width: 2, height: 2, opaque: true),
                options: EncodingOptions(compressionLevel: 10))
        }
        let empty = Image(width: 0, height: 3, pixelFormat: .rgba8, pixels: [])
        let noWidth = TroveError.encodingFailed(
            format: .png,
            reason: "PNG needs a width and height of 1...2^31-1, got 0x3")
        #expect(throws: noWidth) {
            try encoder.encode(empty, options: EncodingOptions())
        }
        var short = Self.rgba(width: 4, height: 4, opaque: true)
        short.pixels.removeLast(8)
        let error = try #require(throws: TroveError.self) { try encoder.encode(short, options: EncodingOptions()) }
        guard case .encodingFailed(format: .png, let reason) = error else {
            Issue.record("unexpected \(error)"); return
        }
        #expect(reason.contains("too small"))
    }
}
