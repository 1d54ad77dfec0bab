import Foundation
import Testing
import TroveCodec
import TroveCore
import TroveTestSupport

/// Shrink-on-load for PNG: rows box-averaged 2^k x 2^k as they are unfiltered equal, byte for byte, a full
/// decode followed by the same reduction; the largest k that keeps the minimum is chosen; Adam7 files
/// decode at full size.
@Suite struct PNGReducedDecodeTests {
    let decoder = PNGDecoder()

    static let files = Fixtures.referenceIndex.map(\.name)

    @Test(arguments: files)
    func everyPngSuiteImageReducesLikeAFullDecodeBoxReduced(name: String) throws {
        let data = try Fixtures.pngSuite(name)
        let full = try decoder.decode(data, limits: .default)
        let interlaced = data[28] == 1
        for shift in 1...2 {
            let minimum = PixelSize(width: reducedLength(full.width, shift), height: reducedLength(full.height, shift))
            let reduced = try decoder.decode(data, options: DecodingOptions(minimumSize: minimum))
            if interlaced || (minimum.width == full.width && minimum.height == full.height) {
                #expect(reduced == full, "Adam7, or nothing to reduce: full size")
                continue
            }
            let expected = boxReduced(full, shift: shift)
            #expect(reduced.width == minimum.width && reduced.height == minimum.height)
            #expect(reduced.pixels == expected.pixels, "shift \(shift)")
        }
    }

    @Test func translucentPixelsAverageInPremultipliedAlpha() throws {
        // 53x29 (partial blocks on both edges) with alpha running through 0 and colour under it.
        let image = Image(
            width: 53, height: 29,
            pixels: (0..<53 * 29).flatMap { i -> [UInt8] in
                let x = i % 53, y = i / 53
                return [UInt8(x * 4), UInt8(y * 8), UInt8((x * y) % 256), UInt8(max(0, (x * 7 + y * 3) % 300 - 44))]
            })
        let data = try PNGEncoder().encode(image, options: EncodingOptions())
        for shift in 1...3 {
            let minimum = PixelSize(width: reducedLength(53, shift), height: reducedLength(29, shift))
            let reduced = try decoder.decode(data, options: DecodingOptions(minimumSize: minimum))
            #expect(reduced.width == minimum.width && reduced.height == minimum.height)
            #expect(reduced.pixels == boxReduced(image, shift: shift).pixels, "shift \(shift)")
        }
        // A block whose pixels are all invisible has no colour.
        let clear = Image(
            width: 4, height: 4,
            pixels: [UInt8](repeating: 0, count: 64).enumerated().map {
                $0.offset % 4 == 3 ? 0 : 200
            })
        let reduced = try decoder.decode(
            try PNGEncoder().encode(clear, options: EncodingOptions()),
            options: DecodingOptions(minimumSize: PixelSize(width: 1, height: 1)))
        #expect(reduced.width == 1 && reduced.height == 1 && reduced.pixels == [0, 0, 0, 0])
    }

    @Test func choosesTheLargestReductionThatKeepsTheMinimum() throws {
        let image = Image(width: 600, height: 400, pixels: [UInt8](repeating: 128, count: 600 * 400 * 4))
        let data = try PNGEncoder().encode(image, options: EncodingOptions())
        let cases: [(PixelSize, PixelSize)] = [
            (PixelSize(width: 200, height: 134), PixelSize(width: 300, height: 200)),  // 1/2
            (PixelSize(width: 150, height: 100), PixelSize(width: 150, height: 100)),  // 1/4
            (PixelSize(width: 140, height: 1), PixelSize(width: 150, height: 100)),  // 1/4: 1/8 is 75 wide
            (PixelSize(width: 1, height: 1), PixelSize(width: 1, height: 1)),  // 1/1024 rounds up to 1
            (PixelSize(width: 301, height: 10), PixelSize(width: 600, height: 400)),  // full size
            (PixelSize(width: 900, height: 900), PixelSize(width: 600, height: 400))  // never larger
        ]
        for (minimum, expected) in cases {
            let reduced = try decoder.decode(data, options: DecodingOptions(minimumSize: minimum))
            #expect(reduced.width == expected.width && reduced.height == expected.height, "minimum \(minimum)")
            #expect(reduced.pixels.count == expected.width * expected.height * 4)
        }
    }

    @Test func infoReadsIHDROnly() throws {
        #expect(try decoder.info(try Fixtures.pngSuite("basn6a08")) == ImageInfo(format: .png, width: 32, height: 32))
        #expect(throws: TroveError.self) { try decoder.info(Data([0x89, 0x50, 0x4E, 0x47])) }
    }

    /// Short data is an error on the reduced route too; data past the last row is left unread, as on the whole
    /// route (and in libpng): the reduction is the exact file's.
    @Test func truncatedDataIsStillAnErrorAndOverlongDataIsReadToTheHeadersRows() throws {
        let image = Image(
            width: 64, height: 64, pixels: (0..<64 * 64 * 4).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) })
        let rows = (0..<64).flatMap { y in [UInt8(0)] + image.pixels[y * 256..<(y + 1) * 256] }
        let header = PNGBuilder.ihdr(width: 64, height: 64)
        let options = DecodingOptions(minimumSize: PixelSize(width: 16, height: 16))
        let short = try PNGBuilder.png(ihdr: header, rows: Array(rows.dropLast(300)))
        #expect(throws: TroveError.self) { try decoder.decode(short, options: options) }
        let long = try PNGBuilder.png(ihdr: header, rows: rows + [0, 1, 2, 3])
        let exact = try decoder.decode(try PNGBuilder.png(ihdr: header, rows: rows), options: options)
        #expect(exact.pixels == boxReduced(image, shift: 2).pixels)
        #expect(try decoder.decode(long, options: options).pixels == exact.pixels)
    }
}

private func reducedLength(_ length: Int, _ shift: Int) -> Int { (length + (1 << shift) - 1) >> shift }

/// The reduction the decoder promises, done the slow way on a full decode: each block's colour averaged
/// weighted by alpha, its alpha averaged, both rounded half up; blocks at the edges over the pixels they hold.
private func boxReduced(_ image: Image, shift: Int) -> Image {
    let block = 1 << shift
    let width = reducedLength(image.width, shift), height = reducedLength(image.height, shift)
    var out = [UInt8](repeating: 0, count: width * height * 4)
    for by in 0..<height {
        for bx in 0..<width {
            var colour = [0, 0, 0], alpha = 0, count = 0
            for y in by * block..<min((by + 1) * block, image.height) {
                for x in bx * block..<min((bx + 1) * block, image.width) {
                    let p = (y * image.width + x) * 4, a = Int(image.pixels[p + 3])
                    for c in 0..<3 { colour[c] += Int(image.pixels[p + c]) * a }
                    alpha += a
                    count += 1
                }
            }
            let o = (by * width + bx) * 4
            for c in 0..<3 { out[o + c] = alpha == 0 ? 0 : UInt8((colour[c] + alpha / 2) / alpha) }
            out[o + 3] = UInt8((alpha + count / 2) / count)
        }
    }
    return Image(width: width, height: height, pixels: out)
}
