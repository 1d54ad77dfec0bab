import Foundation

/// Decompression bombs and impostors, built in memory so no large fixture is kept: each is a few bytes to a
/// few hundred KiB that would cost gigabytes (or millions of frames) if a decoder believed it.
package enum Bombs {
    /// A 16x16 RGBA PNG whose one IDAT inflates to `inflatedBytes` zeros, far past the 16 * (1 + 64) = 1,040
    /// bytes its IHDR implies. The deflate stream is fixed-Huffman matches of 258 bytes each (13 bits), so
    /// 16 MiB inflated is about 100 KiB stored.
    package static func pngInflatingPastItsHeader(inflatedBytes: Int = 16 << 20) -> Data {
        var header = [UInt8]()
        header += bigEndian32(16) + bigEndian32(16)
        header += [8, 6, 0, 0, 0]  // 8 bits, RGBA, deflate, adaptive filters, not interlaced
        var zlib: [UInt8] = [0x78, 0x01]
        zlib += deflatedZeros(count: inflatedBytes)
        zlib += bigEndian32(adler32OfZeros(count: inflatedBytes))
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", [])
        return Data(png)
    }

    /// The expected inflated size of `pngInflatingPastItsHeader`'s image data: 16 rows of a filter byte and
    /// 16 RGBA pixels.
    package static let pngHeaderBytes = 16 * (1 + 16 * 4)

    /// A GIF of `frames` 1x1 frames on a `width` x `height` screen (1x1 by default): 21 bytes a frame, though
    /// each decodes to the whole screen.
    package static func gifWithFrames(_ frames: Int = 10_000, width: Int = 1, height: Int = 1) -> Data {
        var gif = Array("GIF89a".utf8) + littleEndian16(width) + littleEndian16(height) + [0, 0, 0]
        for _ in 0..<frames { gif += onePixelFrame }
        gif.append(0x3B)
        return Data(gif)
    }

    /// A GIF whose logical screen is `width` x `height` (one 1x1 frame on it): 3.6 gigapixels by default.
    package static func gifWithScreen(width: Int = 60_000, height: Int = 60_000) -> Data {
        var gif = Array("GIF89a".utf8) + littleEndian16(width) + littleEndian16(height) + [0, 0, 0]
        gif += onePixelFrame
        gif.append(0x3B)
        return Data(gif)
    }

    /// An image descriptor at (0, 0), 1x1, with a two-colour local table, and its LZW data: clear (4), index
    /// 0, end (5) in 3-bit codes.
    private static let onePixelFrame: [UInt8] =
        [0x2C] + littleEndian16(0) + littleEndian16(0) + littleEndian16(1) + littleEndian16(1) + [0x80]
        + [0, 0, 0, 255, 255, 255] + [2, 2, 0x44, 0x01, 0]

    /// A WebP that is only its VP8X header, declaring a `width` x `height` canvas (10^10 pixels by default).
    package static func webpHeader(width: Int = 100_000, height: Int = 100_000) -> Data {
        func littleEndian24(_ value: Int) -> [UInt8] { (0..<3).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var bytes = Array("RIFF".utf8) + [22, 0, 0, 0] + Array("WEBP".utf8)
        bytes += Array("VP8X".utf8) + [10, 0, 0, 0]
        bytes += [0, 0, 0, 0] + littleEndian24(width - 1) + littleEndian24(height - 1)
        return Data(bytes)
    }

    /// A JPEG XL codestream that is only its size header, declaring `width` x `height`, and 16 zero bytes.
    package static func jxlHeader(width: Int = 1 << 30, height: Int = 1 << 30) -> Data {
        var bits = LeastSignificantFirstBits()
        bits.write(0, count: 1)  // not a small size
        bits.writeSize(height)
        bits.write(0, count: 3)  // no aspect ratio: the width follows
        bits.writeSize(width)
        bits.write(1, count: 1)  // all_default image metadata
        return Data([0xFF, 0x0A] + bits.bytes + [UInt8](repeating: 0, count: 16))
    }

    /// `file` (an AVIF or HEIC) with every 'ispe' box (the item's stored size) declaring `width` x `height`,
    /// or only those that declared `replacing` when given: the pixels stay the small original's.
    package static func isobmff(_ file: Data, declaringWidth width: Int, height: Int, replacing: (Int, Int)? = nil)
        -> Data
    {
        var bytes = [UInt8](file)
        let tag = Array("ispe".utf8)
        var at = 0
        while at + 16 <= bytes.count {
            // 'ispe' is a full box: type, version and flags (4), width (4), height (4).
            if bytes[at..<at + 4].elementsEqual(tag),
                replacing.map({ bytes[at + 8..<at + 16].elementsEqual(bigEndian32($0.0) + bigEndian32($0.1)) }) ?? true
            {
                bytes.replaceSubrange(at + 8..<at + 16, with: bigEndian32(width) + bigEndian32(height))
            }
            at += 1
        }
        return Data(bytes)
    }

    /// `jpeg` with its start-of-frame declaring `width` x `height`; the scan data stays the small original's.
    package static func jpeg(_ jpeg: Data, declaringWidth width: Int, height: Int) -> Data {
        var bytes = [UInt8](jpeg)
        var at = 2
        // Walk the marker segments to the first SOFn (C0-CF, less DHT C4, JPG C8 and DAC CC).
        while at + 9 < bytes.count, bytes[at] == 0xFF {
            let marker = bytes[at + 1]
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                // FF Cn, length (2), precision (1), height (2), width (2).
                bytes.replaceSubrange(at + 5..<at + 9, with: bigEndian16(height) + bigEndian16(width))
                break
            }
            at += 2 + Int(bytes[at + 2]) << 8 + Int(bytes[at + 3])
        }
        return Data(bytes)
    }

    /// A small SVG document: a vector drawing, not an image a raster decoder claims.
    package static let svg = Data(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000" viewBox="0 0 10 10">
          <rect width="10" height="10" fill="red"/>
        </svg>

        """.utf8)

    // MARK: - Bytes

    /// A raw deflate stream (one final fixed-Huffman block) producing `count` zero bytes: a literal 0, then
    /// matches at distance 1, the last one shorter.
    static func deflatedZeros(count: Int) -> [UInt8] {
        var bits = LeastSignificantFirstBits()
        bits.write(1, count: 1)  // final block
        bits.write(1, count: 2)  // fixed Huffman codes
        bits.writeHuffman(0b0011_0000, count: 8)  // literal 0
        var left = count - 1
        while left >= 3 {
            let length = min(left, 258)
            bits.writeLength(length)
            bits.writeHuffman(0, count: 5)  // distance code 0: distance 1
            left -= length
        }
        for _ in 0..<left { bits.writeHuffman(0b0011_0000, count: 8) }
        bits.writeHuffman(0, count: 7)  // end of block (256)
        return bits.bytes
    }

    static func adler32OfZeros(count: Int) -> Int {
        // a stays 1; b adds a once per byte.
        (count % 65521) << 16 | 1
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian32(data.count) + body + bigEndian32(Int(crc32(body)))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func bigEndian32(_ value: Int) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    }
    static func bigEndian16(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
    static func littleEndian16(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }
}

/// Bits packed least significant first, as deflate and JPEG XL headers are read.
struct LeastSignificantFirstBits {
    var bytes: [UInt8] = []
    var used = 0

    mutating func write(_ value: Int, count: Int) {
        for bit in 0..<count {
            if used % 8 == 0 { bytes.append(0) }
            if value >> bit & 1 == 1 { bytes[bytes.count - 1] |= UInt8(1 << (used % 8)) }
            used += 1
        }
    }

    /// A Huffman code: deflate packs those most significant bit first.
    mutating func writeHuffman(_ code: Int, count: Int) {
        for bit in (0..<count).reversed() { write(code >> bit & 1, count: 1) }
    }

    /// A match length 3...258 as a fixed-Huffman length symbol and its extra bits.
    mutating func writeLength(_ length: Int) {
        let bases = [
            3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
            163, 195, 227, 258
        ]
        let extras = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
        let index = bases.lastIndex { $0 <= length }!
        let symbol = 257 + index
        // Symbols 256-279 have 7-bit codes from 0; 280-287 have 8-bit codes from 0b1100_0000.
        if symbol < 280 {
            writeHuffman(symbol - 256, count: 7)
        } else {
            writeHuffman(0b1100_0000 + symbol - 280, count: 8)
        }
        write(length - bases[index], count: extras[index])
    }

    /// A JPEG XL size as the U32 of the size header: selector 3, then `size - 1` in 30 bits.
    mutating func writeSize(_ size: Int) {
        write(3, count: 2)
        write(size - 1, count: 30)
    }
}
