import Foundation
import Testing
import TroveCodec
import TroveCore
import TroveTestSupport

/// Hand-built and damaged files: limits, truncation, and the structural rules of the format.
@Suite struct PNGDecoderValidationTests {
    let decoder = PNGDecoder()

    func reason(_ data: Data, limits: DecodingLimits = .default) throws -> String {
        let error = try #require(throws: TroveError.self) { try decoder.decode(data, limits: limits) }
        guard case .decodingFailed(format: .png, let reason) = error else {
            Issue.record("expected decodingFailed, got \(error)"); return ""
        }
        return reason
    }

    /// 2x2 RGBA, rows with filter None.
    static let tinyRows: [UInt8] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 1, 9, 9, 9, 9, 9, 9, 9, 9]

    @Test func handBuiltFileDecodes() throws {
        let png = try PNGBuilder.png(ihdr: PNGBuilder.ihdr(width: 2, height: 2), rows: Self.tinyRows)
        let image = try decoder.decode(png, limits: .default)
        // Row 2 uses Sub: each byte adds the one 4 to its left.
        #expect(image.pixels == [1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9, 18, 18, 18, 18])
    }

    @Test func decodesFromADataSliceThatDoesNotStartAtZero() throws {
        let png = try Fixtures.pngSuite("basn3p08")
        let slice = (Data([1, 2, 3]) + png).dropFirst(3)
        #expect(slice.startIndex == 3)
        #expect(try decoder.decode(slice, limits: .default) == (try decoder.decode(png, limits: .default)))
    }

    @Test func hugeDeclaredSizeIsRefusedBeforeAllocating() throws {
        var builder = PNGBuilder()
        builder.chunk("IHDR", PNGBuilder.ihdr(width: 100_000, height: 100_000))
        builder.chunk("IDAT", [0x78, 0x9C, 0x03, 0x00])
        builder.chunk("IEND", [])
        #expect(throws: TroveError.imageTooLarge(width: 100_000, height: 100_000, limit: 100_000_000)) {
            try decoder.decode(Data(builder.bytes), limits: .default)
        }
    }

    @Test func customPixelLimitIsHonoured() throws {
        let png = try Fixtures.pngSuite("basn6a08")  // 32x32
        #expect(throws: TroveError.imageTooLarge(width: 32, height: 32, limit: 1000)) {
            try decoder.decode(png, limits: DecodingLimits(maxPixels: 1000))
        }
        #expect(try decoder.decode(png, limits: DecodingLimits(maxPixels: 1024)).width == 32)
    }

    @Test func fileCutInsideIDATThrows() throws {
        let png = try Fixtures.pngSuite("basn2c08")  // one IDAT chunk of 72 bytes, then its CRC
        let idat = try #require(png.range(of: Data("IDAT".utf8)))
        for cut in [idat.upperBound, idat.upperBound + 36, idat.upperBound + 75] {
            #expect(try reason(png.prefix(cut)).contains("file ends inside IDAT chunk"))
        }
    }

    @Test func streamTooShortForTheImageThrows() throws {
        // A well-formed file whose compressed rows are one row short of what IHDR declares.
        let png = try PNGBuilder.png(ihdr: PNGBuilder.ihdr(width: 2, height: 3), rows: Self.tinyRows)
        #expect(try reason(png).contains("image data is truncated: it inflates to 18 of the 27 bytes its IHDR implies"))
    }

    /// A row more than IHDR says is left unread (libpng warns "Too much image data" and reads the image).
    @Test func streamLongerThanTheImageDecodesTheHeadersRows() throws {
        let png = try PNGBuilder.png(ihdr: PNGBuilder.ihdr(width: 2, height: 1), rows: Self.tinyRows)
        let image = try decoder.decode(png, limits: .default)
        #expect(image.width == 2 && image.height == 1)
        #expect(image.pixels == [1, 2, 3, 4, 5, 6, 7, 8])
    }

    /// Whole image data whose zlib stream lacks its Adler-32 decodes, as libpng and Pillow decode it.
    @Test func streamWithoutItsChecksumDecodes() throws {
        let compressed = [UInt8](try ZlibCompressor().compress(Data(Self.tinyRows), level: 6))
        var builder = PNGBuilder()
        builder.chunk("IHDR", PNGBuilder.ihdr(width: 2, height: 2))
        builder.chunk("IDAT", Array(compressed.dropLast(4)))
        builder.chunk("IEND", [])
        let image = try decoder.decode(Data(builder.bytes), limits: .default)
        #expect(image.pixels == [1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9, 18, 18, 18, 18])
    }

    /// Whole image data without the IEND chunk after it decodes as libpng, browsers and libvips decode it;
    /// a file that ends between IDAT chunks is still truncated.
    @Test func missingIENDAfterWholeImageDataDecodes() throws {
        let png = try PNGBuilder.png(ihdr: PNGBuilder.ihdr(width: 2, height: 2), rows: Self.tinyRows)
        #expect(try decoder.decode(png.dropLast(12), limits: .default) == (try decoder.decode(png, limits: .default)))

        let compressed = [UInt8](try ZlibCompressor().compress(Data(Self.tinyRows), level: 6))
        var builder = PNGBuilder()
        builder.chunk("IHDR", PNGBuilder.ihdr(width: 2, height: 2))
        builder.chunk("IDAT", Array(compressed.prefix(compressed.count / 2)))
        builder.chunk("IDAT", Array(compressed.dropFirst(compressed.count / 2)))
        builder.chunk("IEND", [])
        let split = Data(builder.bytes)
        #expect(
            try decoder.decode(split, limits: .default).pixels == (try decoder.decode(png, limits: .default)).pixels)
        let secondIDAT = 8 + 25 + 12 + compressed.count / 2
        #expect(try reason(split.prefix(secondIDAT)).contains("truncated"))
    }

    /// An eXIf chunk holds a TIFF structure; some writers copy JPEG's "Exif\0\0" before it, and Pillow and
    /// exiftool read that too (as Trove's WebP decoder does): the orientation is the block's either way.
    @Test func eXIfWithOrWithoutJPEGsIdentifierGivesItsOrientation() throws {
        // Little-endian TIFF, one IFD entry: Orientation (0x0112), SHORT, 1 value: 6.
        let tiff: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]
        for payload in [tiff, Array("Exif".utf8) + [0, 0] + tiff] {
            let png = try PNGBuilder.png(
                ihdr: PNGBuilder.ihdr(width: 2, height: 2), rows: Self.tinyRows, extraBeforeIDAT: [("eXIf", payload)])
            #expect(try decoder.decode(png, limits: .default).orientation == .right)
            #expect(try decoder.info(png)?.orientation == .right)
        }
    }

    @Test func badCRCOnAncillaryChunkIsIgnoredButOnCriticalIsNot() throws {
        var builder = PNGBuilder()
        builder.chunk("IHDR", PNGBuilder.ihdr(width: 2, height: 2))
        builder.chunk("tEXt", Array("Comment\0hi".utf8), crc: 0xDEAD_BEEF)
        builder.chunk("IDAT", [UInt8](try ZlibCompressor().compress(Data(Self.tinyRows), level: 6)))
        builder.chunk("IEND", [])
        #expect(try decoder.decode(Data(builder.bytes), limits: .default).pixels.count == 16)

        var broken = PNGBuilder()
        broken.chunk("IHDR", PNGBuilder.ihdr(width: 2, height: 2))
        broken.chunk("IDAT", [UInt8](try ZlibCompressor().compress(Data(Self.tinyRows), level: 6)))
        broken.chunk("IEND", [], crc: 0)
        #expect(try reason(Data(broken.bytes)).contains("CRC mismatch in IEND chunk"))
    }

    @Test func firstChunkMustBeIHDR() throws {
        var builder = PNGBuilder()
        builder.chunk("tEXt", Array("a\0b".utf8))
        builder.chunk("IHDR", PNGBuilder.ihdr(width: 2, height: 2))
        #expect(try reason(Data(builder.bytes)).contains("first chunk is tEXt, expected IHDR"))
    }

    @Test func unknownCriticalChunkIsRefused() throws {
        let png = try PNGBuilder.png(
            ihdr: PNGBuilder.ihdr(width: 2, height: 2), rows: Self.tinyRows,
            extraBeforeIDAT: [("ZZZZ", [1, 2, 3])])
        #expect(try reason(png).contains("unknown critical chunk ZZZZ"))
    }

    @Test func invalidFilterTypeIsRefused() throws {
        var rows = Self.tinyRows
        rows[9] = 7
        let png = try PNGBuilder.png(ihdr: PNGBuilder.ihdr(width: 2, height: 2), rows: rows)
        #expect(try reason(png).contains("invalid filter type 7 in row 1"))
    }

    @Test func paletteImageWithoutPLTEIsRefused() throws {
        let png = try PNGBuilder.png(ihdr: PNGBuilder.ihdr(width: 2, height: 1, colorType: 3), rows: [0, 0, 1])
        #expect(try reason(png).contains("missing PLTE chunk"))
    }

    @Test func paletteIndexPastThePaletteIsOpaqueBlack() throws {
        let png = try PNGBuilder.png(
            ihdr: PNGBuilder.ihdr(width: 2, height: 1, colorType: 3), rows: [0, 0, 200],
            extraBeforeIDAT: [("PLTE", [10, 20, 30])])
        #expect(try decoder.decode(png, limits: .default).pixels == [10, 20, 30, 255, 0, 0, 0, 255])
    }

    @Test func zeroWidthIsRefused() throws {
        let png = try PNGBuilder.png(ihdr: PNGBuilder.ihdr(width: 0, height: 2), rows: [])
        #expect(try reason(png).contains("invalid image size 0x2"))
    }

    @Test func garbageAfterSignatureIsRefusedNotCrashed() throws {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let tails: [[UInt8]] = [
            [], [0, 0], [0xFF, 0xFF, 0xFF, 0xFF, 0x49, 0x48, 0x44, 0x52],
            Array(repeating: 0x41, count: 40)
        ]
        for tail in tails {
            #expect(throws: TroveError.self) { try decoder.decode(Data(signature + tail), limits: .default) }
        }
    }

    /// Every truncation throws but the one that leaves out only the IEND chunk, whose image is whole.
    @Test func everyTruncationOfAValidFileThrows() throws {
        let png = try Fixtures.pngSuite("basi3p02")
        let withoutEnd = png.count - 12
        for length in 0..<png.count where length != withoutEnd {
            #expect(throws: TroveError.self) { try decoder.decode(png.prefix(length), limits: .default) }
        }
        #expect(
            try decoder.decode(png.prefix(withoutEnd), limits: .default) == (try decoder.decode(png, limits: .default)))
    }
}
