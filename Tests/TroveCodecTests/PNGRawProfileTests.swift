import Foundation
import Testing
import TroveCodec
import TroveCore

/// ImageMagick's "Raw profile type exif" text chunk: the EXIF block of PNGs it wrote before the eXIf chunk
/// existed, which Pillow's `exif_transpose` and exiftool read (Pillow's `exif_imagemagick_orientation.png`).
@Suite struct PNGRawProfileTests {
    let decoder = PNGDecoder()

    /// Big-endian TIFF, as ImageMagick copies a camera's: one IFD entry, Orientation (0x0112), SHORT, 1 value.
    static func tiff(orientation: UInt8) -> [UInt8] {
        [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0]
    }

    /// The text ImageMagick writes: a newline, the name, a newline, the length right-aligned in 8, a newline,
    /// then the bytes in hex, 36 to a line.
    static func profileText(_ bytes: [UInt8], name: String = "exif") -> [UInt8] {
        let hex = bytes.map { String(format: "%02x", $0) }
        let lines = stride(from: 0, to: hex.count, by: 36).map { hex[$0..<min($0 + 36, hex.count)].joined() }
        let length = String(bytes.count)
        let padded = String(repeating: " ", count: max(0, 8 - length.count)) + length
        return Array(("\n\(name)\n\(padded)\n" + lines.joined(separator: "\n") + "\n").utf8)
    }

    static let exifPayload = Array("Exif".utf8) + [0, 0] + tiff(orientation: 3)

    static func png(_ chunks: [(String, [UInt8])], afterIDAT: [(String, [UInt8])] = []) throws -> Data {
        var builder = PNGBuilder()
        builder.chunk("IHDR", PNGBuilder.ihdr(width: 2, height: 2))
        for (type, data) in chunks { builder.chunk(type, data) }
        builder.chunk(
            "IDAT", [UInt8](try ZlibCompressor().compress(Data(PNGDecoderValidationTests.tinyRows), level: 6)))
        for (type, data) in afterIDAT { builder.chunk(type, data) }
        builder.chunk("IEND", [])
        return Data(builder.bytes)
    }

    func orientation(_ png: Data) throws -> (decoded: ExifOrientation, info: ExifOrientation?) {
        (try decoder.decode(png, limits: .default).orientation, try decoder.info(png)?.orientation)
    }

    @Test func aTextChunksRawProfileGivesTheOrientation() throws {
        let keyword = Array("Raw profile type exif".utf8) + [0]
        let png = try Self.png([("tEXt", keyword + Self.profileText(Self.exifPayload))])
        #expect(try orientation(png) == (.down, .down))
        #expect(decoder.exif(png) == Self.tiff(orientation: 3))
        #expect(decoder.embeddedMetadata(png).exif == Self.tiff(orientation: 3))
    }

    @Test func compressedAndInternationalTextAndTheAPP1KeywordAreReadToo() throws {
        let text = Self.profileText(Self.exifPayload)
        let deflated = [UInt8](try ZlibCompressor().compress(Data(text), level: 6))
        let exif = Array("Raw profile type exif".utf8) + [0]
        let app1 = Array("Raw profile type APP1".utf8) + [0]
        let chunks: [(String, [UInt8])] = [
            ("zTXt", exif + [0] + deflated),
            ("iTXt", exif + [0, 0] + [0, 0] + text),
            ("iTXt", exif + [1, 0] + Array("en".utf8) + [0, 0] + deflated),
            ("tEXt", app1 + Self.profileText(Self.exifPayload, name: "APP1")),
            // No "Exif\0\0" before the TIFF header: the block is read either way, as eXIf's is.
            ("tEXt", exif + Self.profileText(Self.tiff(orientation: 3)))
        ]
        for chunk in chunks {
            #expect(try orientation(try Self.png([chunk])) == (.down, .down), "\(chunk.0)")
        }
    }

    @Test func anEXIfChunkWinsOverARawProfileBeforeIt() throws {
        let keyword = Array("Raw profile type exif".utf8) + [0]
        let png = try Self.png([
            ("tEXt", keyword + Self.profileText(Self.exifPayload)),
            ("eXIf", Self.tiff(orientation: 6))
        ])
        #expect(try orientation(png) == (.right, .right))
    }

    /// Damage never fails the decode: the profile is left out, and the picture is shown as stored.
    @Test func aMalformedMisplacedOrDamagedProfileIsLeftOut() throws {
        let keyword = Array("Raw profile type exif".utf8) + [0]
        let good = Self.profileText(Self.exifPayload)
        let text = String(decoding: good, as: UTF8.self)
        let malformed: [[UInt8]] = [
            // The length says one byte more than the hex holds.
            Array(text.replacingOccurrences(of: "      32", with: "      33").utf8),
            // A character that is not a hex digit.
            Array(text.replacingOccurrences(of: "4578", with: "4x78").utf8),
            // No length, or a length of zero, or one far past the limit.
            Array("\nexif\n\n".utf8),
            Array("\nexif\n0\n".utf8),
            Array("\nexif\n99999999999\n00".utf8),
            []
        ]
        for body in malformed {
            #expect(try orientation(try Self.png([("tEXt", keyword + body)])) == (.up, .up))
        }
        // Another keyword, a damaged zlib stream, an unknown compression method.
        #expect(try orientation(try Self.png([("tEXt", Array("Comment\0".utf8) + good)])) == (.up, .up))
        #expect(try orientation(try Self.png([("zTXt", keyword + [0, 0x78, 0x9C, 1, 2, 3])])) == (.up, .up))
        #expect(try orientation(try Self.png([("zTXt", keyword + [1] + good)])) == (.up, .up))
        // After the image data, where neither eXIf nor this is looked for.
        #expect(try orientation(try Self.png([], afterIDAT: [("tEXt", keyword + good)])) == (.up, .up))
    }

    /// A profile of `maxProfileBytes` is read; one byte more is left out, even with every digit there.
    @Test func theProfileLimitIsExact() throws {
        let keyword = Array("Raw profile type exif".utf8) + [0]
        let limit = 256 << 10
        for (size, expected) in [(limit, ExifOrientation.down), (limit + 1, .up)] {
            let padded = Self.exifPayload + [UInt8](repeating: 0, count: size - Self.exifPayload.count)
            #expect(
                try orientation(try Self.png([("tEXt", keyword + Self.profileText(padded))])) == (expected, expected))
        }
    }

    /// A compressed text is inflated only as far as the longest profile's text: a small chunk that inflates to
    /// megabytes is left out.
    @Test func aCompressedTextPastTheLimitIsLeftOut() throws {
        let keyword = Array("Raw profile type exif".utf8) + [0]
        let huge = Self.profileText(Self.exifPayload) + [UInt8](repeating: 0x20, count: 4 << 20)
        let deflated = [UInt8](try ZlibCompressor().compress(Data(huge), level: 9))
        #expect(deflated.count < 64 << 10)
        #expect(try orientation(try Self.png([("zTXt", keyword + [0] + deflated)])) == (.up, .up))
        // The same text without the padding is read.
        let small = [UInt8](try ZlibCompressor().compress(Data(Self.profileText(Self.exifPayload)), level: 9))
        #expect(try orientation(try Self.png([("zTXt", keyword + [0] + small)])) == (.down, .down))
    }

    /// Only the first text chunk with each keyword is read, whole or not: a file cannot make the decoder
    /// inflate one text after another. An "APP1" profile that holds no EXIF (exiftool writes XMP so) leaves
    /// the "exif" one to be read.
    @Test func onlyTheFirstRawProfileOfEachKeywordCounts() throws {
        let exif = Array("Raw profile type exif".utf8) + [0]
        let app1 = Array("Raw profile type APP1".utf8) + [0]
        let good: (String, [UInt8]) = ("tEXt", exif + Self.profileText(Self.exifPayload))
        #expect(try orientation(try Self.png([("tEXt", exif + Array("\nexif\n0\n".utf8)), good])) == (.up, .up))
        let xmp = Self.profileText(Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array("<x:xmpmeta/>".utf8))
        #expect(try orientation(try Self.png([("tEXt", app1 + xmp), good])) == (.down, .down))
    }

    /// A text chunk longer than the longest profile's text is not read (nor its CRC computed): its length is
    /// checked first.
    @Test func aTextChunkLongerThanAnyProfileIsNotRead() throws {
        let keyword = Array("Raw profile type exif".utf8) + [0]
        let padding = [UInt8](repeating: 0x0A, count: 600 << 10)
        #expect(
            try orientation(try Self.png([("tEXt", keyword + Self.profileText(Self.exifPayload) + padding)])) == (
                .up, .up
            ))
        let deflated = [UInt8](
            try ZlibCompressor().compress(Data(Self.profileText(Self.exifPayload) + padding), level: 9))
        // Compressed, the same text is short enough to be read, and inflates past the limit.
        #expect(deflated.count < 64 << 10)
        #expect(try orientation(try Self.png([("zTXt", keyword + [0] + deflated)])) == (.up, .up))
        #expect(
            try orientation(
                try Self.png([("tEXt", keyword + Self.profileText(Self.exifPayload) + padding.prefix(1000))])) == (
                    .down, .down
                ))
    }

    /// An eXIf chunk that cannot be read (its CRC, or no TIFF header in it) does not hide the raw profile,
    /// before or after it; one that can be read wins wherever it is.
    @Test func anUnreadableEXIfLeavesTheRawProfile() throws {
        let keyword = Array("Raw profile type exif".utf8) + [0]
        let raw: (String, [UInt8]) = ("tEXt", keyword + Self.profileText(Self.exifPayload))
        let notTIFF: (String, [UInt8]) = ("eXIf", Array("not a TIFF block".utf8))
        #expect(try orientation(try Self.png([notTIFF, raw])) == (.down, .down))
        #expect(try orientation(try Self.png([raw, notTIFF])) == (.down, .down))
        #expect(try orientation(try Self.png([raw, notTIFF, ("eXIf", Self.tiff(orientation: 6))])) == (.right, .right))

        var builder = PNGBuilder()
        builder.chunk("IHDR", PNGBuilder.ihdr(width: 2, height: 2))
        builder.chunk("eXIf", Self.tiff(orientation: 6), crc: 0xDEAD_BEEF)
        builder.chunk(raw.0, raw.1)
        builder.chunk(
            "IDAT", [UInt8](try ZlibCompressor().compress(Data(PNGDecoderValidationTests.tinyRows), level: 6)))
        builder.chunk("IEND", [])
        #expect(try orientation(Data(builder.bytes)) == (.down, .down))
    }

    /// XMP's iTXt chunk goes through the same text reader: compressed and not.
    @Test func anXMPPacketIsReadFromPlainAndCompressedITXt() throws {
        let packet = Array("<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF/></x:xmpmeta>".utf8)
        let keyword = Array("XML:com.adobe.xmp".utf8) + [0]
        let deflated = [UInt8](try ZlibCompressor().compress(Data(packet), level: 9))
        for body in [keyword + [0, 0, 0, 0] + packet, keyword + [1, 0] + Array("en".utf8) + [0, 0] + deflated] {
            #expect(decoder.embeddedMetadata(try Self.png([("iTXt", body)])).xmp == packet)
        }
        // Compression flag 1 with an unknown method, or a flag past 1: left out.
        #expect(decoder.embeddedMetadata(try Self.png([("iTXt", keyword + [1, 1, 0, 0] + deflated)])).xmp == nil)
        #expect(decoder.embeddedMetadata(try Self.png([("iTXt", keyword + [2, 0, 0, 0] + packet)])).xmp == nil)
    }

    @Test func aRawProfileWithABadCRCIsLeftOut() throws {
        var builder = PNGBuilder()
        builder.chunk("IHDR", PNGBuilder.ihdr(width: 2, height: 2))
        builder.chunk(
            "tEXt", Array("Raw profile type exif".utf8) + [0] + Self.profileText(Self.exifPayload), crc: 0xDEAD_BEEF)
        builder.chunk(
            "IDAT", [UInt8](try ZlibCompressor().compress(Data(PNGDecoderValidationTests.tinyRows), level: 6)))
        builder.chunk("IEND", [])
        #expect(try orientation(Data(builder.bytes)) == (.up, .up))
    }
}
