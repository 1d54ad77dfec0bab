import Foundation
import Testing
import TroveCodec
import TroveCore

/// A gray or RGB PNG's tRNS color key, read as libpng reads it (and so browsers): a key sample past the image's
/// bit depth keeps only its low bits, where Trove used to match no pixel at all.
@Suite struct PNGColorKeyTests {
    /// A 4x1 gray image of `depth` bits whose samples are 0, 1, 2, 3 (masked to the depth), keyed `key`.
    static func gray(depth: UInt8, key: UInt16) throws -> Data {
        let packed: [UInt8] =
            switch depth {
            case 1: [0b0101_0000]
            case 2: [0b0001_1011]
            case 4: [0x01, 0x23]
            default: [0, 1, 2, 3]
            }
        return try PNGBuilder.png(
            ihdr: PNGBuilder.ihdr(width: 4, height: 1, bitDepth: depth, colorType: 0), rows: [0] + packed,
            extraBeforeIDAT: [("tRNS", [UInt8(key >> 8), UInt8(key & 0xFF)])])
    }

    /// Which of the four pixels come out transparent.
    static func clearPixels(_ png: Data) throws -> [Bool] {
        let image = try PNGDecoder().decode(png, limits: .default).convertedToRGBA8()
        return (0..<4).map { image.pixels[4 * $0 + 3] == 0 }
    }

    @Test(arguments: [
        // In range: the key's own sample.
        (UInt8(1), UInt16(0x0001), [false, true, false, true]),
        (2, 0x0002, [false, false, true, false]), (8, 0x0003, [false, false, false, true]),
        // Past the depth: libpng keeps the low bits (1-bit 0x00FF keys 1; 2-bit 0x0009 keys 1; 8-bit 0x0100 keys 0).
        (1, 0x00FF, [false, true, false, true]), (2, 0x0009, [false, true, false, false]),
        (4, 0x0012, [false, false, true, false]), (8, 0x0100, [true, false, false, false])
    ])
    func grayKeysAsLibpngReadsThem(depth: UInt8, key: UInt16, clear: [Bool]) throws {
        #expect(try Self.clearPixels(Self.gray(depth: depth, key: key)) == clear)
    }

    /// An 8-bit RGB key whose samples carry high bytes matches the pixel of their low bytes.
    @Test func rgbKeysKeepTheirLowBytes() throws {
        let pixels: [UInt8] = [10, 20, 30, 40, 50, 60, 10, 20, 31, 0, 0, 0]
        let png = try PNGBuilder.png(
            ihdr: PNGBuilder.ihdr(width: 4, height: 1, bitDepth: 8, colorType: 2), rows: [0] + pixels,
            extraBeforeIDAT: [("tRNS", [0x01, 10, 0x02, 20, 0x03, 30])])
        #expect(try Self.clearPixels(png) == [true, false, false, false])
    }
}
