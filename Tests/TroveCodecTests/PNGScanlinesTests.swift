import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveCodec

/// A streamed decode's scanlines inflated at once (libdeflate) are the scanlines inflated a row at a time
/// (zlib): the same bytes, the same error for a stream that is short or corrupt, and the same rows for one
/// that is long or lacks its end, as libpng reads them.
@Suite struct PNGScanlinesTests {
    static let rowBytes = 301
    static let height = 40

    /// Rows of noise and smooth runs (each with a filter byte), as a photo's compressed data mixes literals
    /// and matches.
    static func rows(count: Int = height, seed: UInt64 = 7) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        var out: [UInt8] = []
        for y in 0..<count {
            out.append(UInt8(y % 5))
            for x in 0..<rowBytes {
                let smooth = UInt8(truncatingIfNeeded: x / 7 + y)
                out.append(y % 3 == 0 ? smooth : UInt8.random(in: 0...255, using: &random))
            }
        }
        return out
    }

    static func compressed(_ rows: [UInt8], level: Int = 6) throws -> [UInt8] {
        [UInt8](try ZlibCompressor().compress(Data(rows), level: level))
    }

    /// Every scanline read through `PNGScanlines`, or the error's text; the stream is cut into `pieces` ranges
    /// (separate IDAT chunks).
    static func read(_ stream: [UInt8], pieces: Int = 1, wholeInflateLimit: Int) -> Result<[UInt8], TroveError> {
        stream.withUnsafeBytes { bytes in
            let size = (bytes.count + pieces - 1) / pieces
            let ranges = stride(from: 0, to: bytes.count, by: max(size, 1)).map { $0..<min($0 + size, bytes.count) }
            do {
                let scanlines = try PNGScanlines(
                    bytes, ranges: ranges, rowBytes: rowBytes, height: height, wholeInflateLimit: wholeInflateLimit)
                var out: [UInt8] = []
                for _ in 0..<height { out += UnsafeBufferPointer(start: try scanlines.next(), count: rowBytes + 1) }
                try scanlines.finish()
                return .success(out)
            } catch let error as TroveError {
                return .failure(error)
            } catch {
                Issue.record("unexpected \(error)")
                return .failure(.cancelled)
            }
        }
    }

    @Test(arguments: [(0, 1), (1, 1), (6, 1), (9, 3), (6, 7)])
    func bothRoutesGiveTheRowsThatWereCompressed(level: Int, pieces: Int) throws {
        let rows = Self.rows()
        let stream = try Self.compressed(rows, level: level)
        #expect(try Self.read(stream, pieces: pieces, wholeInflateLimit: .max).get() == rows)
        #expect(try Self.read(stream, pieces: pieces, wholeInflateLimit: 0).get() == rows)
    }

    @Test func theLimitIsInclusive() throws {
        let rows = Self.rows()
        let stream = try Self.compressed(rows)
        #expect(try Self.read(stream, wholeInflateLimit: rows.count).get() == rows)
        #expect(try Self.read(stream, wholeInflateLimit: rows.count - 1).get() == rows)
    }

    @Test func aShortStreamFailsAlikeOnBothRoutes() throws {
        let stream = try Self.compressed(Self.rows(count: Self.height - 3))
        let whole = Self.read(stream, wholeInflateLimit: .max)
        #expect(whole == Self.read(stream, wholeInflateLimit: 0))
        let expected = (Self.height - 3) * (Self.rowBytes + 1)
        let total = Self.height * (Self.rowBytes + 1)
        #expect(
            whole
                == .failure(
                    PNGDecoder.failure(
                        "image data is truncated: it inflates to \(expected) of the \(total) bytes its IHDR implies")))
    }

    @Test func aCutStreamFailsAlikeOnBothRoutes() throws {
        let stream = try Self.compressed(Self.rows())
        let cut = Array(stream.prefix(stream.count / 2))
        let whole = Self.read(cut, wholeInflateLimit: .max)
        #expect(whole == Self.read(cut, wholeInflateLimit: 0))
        guard case .failure(let error) = whole else {
            Issue.record("a cut stream read whole")
            return
        }
        #expect("\(error)".contains("image data is truncated: it inflates to"))
    }

    /// Data past the last scanline (an encoder that wrote a row too many) is left unread, as libpng, Pillow and
    /// browsers leave it: the header's rows are the image.
    @Test func aLongStreamGivesTheHeadersRowsOnBothRoutes() throws {
        let rows = Self.rows(count: Self.height + 1)
        let stream = try Self.compressed(rows)
        let expected = Array(rows.prefix(Self.height * (Self.rowBytes + 1)))
        #expect(try Self.read(stream, wholeInflateLimit: .max).get() == expected)
        #expect(try Self.read(stream, wholeInflateLimit: 0).get() == expected)
    }

    /// A stream cut after its last compressed byte, before its Adler-32 (or that and its final empty block),
    /// still holds every row: it is read on both routes. A wrong Adler-32 says a byte was damaged: refused.
    @Test func aStreamWithoutItsEndGivesItsRowsAndAWrongChecksumFails() throws {
        let rows = Self.rows()
        let stream = try Self.compressed(rows)
        let withoutChecksum = Array(stream.dropLast(4))
        #expect(try Self.read(withoutChecksum, wholeInflateLimit: .max).get() == rows)
        #expect(try Self.read(withoutChecksum, wholeInflateLimit: 0).get() == rows)
        var wrongChecksum = stream
        wrongChecksum[wrongChecksum.count - 1] ^= 0xFF
        let whole = Self.read(wrongChecksum, wholeInflateLimit: .max)
        #expect(whole == Self.read(wrongChecksum, wholeInflateLimit: 0))
        guard case .failure(let error) = whole else {
            Issue.record("a stream with a wrong Adler-32 was read")
            return
        }
        #expect("\(error)".contains("corrupt image data in IDAT"))
    }

    @Test func aCorruptStreamFailsAlikeOnBothRoutes() throws {
        var stream = try Self.compressed(Self.rows())
        // A block type of 3 (reserved) in the first block's header, after the two-byte zlib header.
        stream[2] |= 0b110
        let whole = Self.read(stream, wholeInflateLimit: .max)
        #expect(whole == Self.read(stream, wholeInflateLimit: 0))
        #expect(whole == .failure(PNGDecoder.failure("corrupt image data in IDAT: invalid block type")))
    }

    /// What a streamed decode of a PNG holds, read from its IHDR: the whole image data, or two scanlines over
    /// the limit; nothing for bytes whose IHDR cannot be read.
    @Test func scanlineBytesComeFromTheHeader() throws {
        let chelsea = try Data(contentsOf: Fixtures.images.appendingPathComponent("chelsea.png"))
        // 451x300, 8-bit RGB: 1,353 bytes a row and its filter byte.
        #expect(PNGDecoder.scanlineBytes(of: chelsea) == 300 * (451 * 3 + 1))
        #expect(PNGDecoder.scanlineBytes(of: (Data([0]) + chelsea).dropFirst()) == 300 * (451 * 3 + 1))
        // 6000x4000 16-bit RGBA inflates past the limit: rows one at a time, two scanlines of 48,001 bytes.
        func header(bitDepth: UInt8) -> Data {
            var file = PNGBuilder()
            file.chunk("IHDR", PNGBuilder.ihdr(width: 6000, height: 4000, bitDepth: bitDepth, colorType: 6))
            return Data(file.bytes)
        }
        #expect(PNGDecoder.scanlineBytes(of: header(bitDepth: 16)) == 2 * 48_001)
        #expect(PNGDecoder.scanlineBytes(of: header(bitDepth: 7)) == 0)
        #expect(PNGDecoder.scanlineBytes(of: Data("not a PNG, and long enough to have an IHDR".utf8)) == 0)
    }
}
