import Foundation
import Testing
import TroveCodec
import TroveCore
import TroveTestSupport

/// Every valid PngSuite image (all color types, bit depths, interlacing, tRNS, ancillary chunks) decodes to
/// exactly the pixels of its independent reference (pypng, see Fixtures/pngsuite-rgba/README.md).
@Suite struct PNGSuiteReferenceTests {
    @Test func everyValidSuiteFileHasAReference() {
        let valid = Fixtures.pngSuiteNames.filter { !$0.hasPrefix("x") }
        #expect(valid.count == 161)
        #expect(Fixtures.referenceIndex.map(\.name) == valid)
    }

    @Test(arguments: Fixtures.referenceIndex.map(\.name))
    func decodesEveryPixelLikeTheReference(name: String) throws {
        let entry = try #require(Fixtures.referenceIndex.first { $0.name == name })
        let image = try PNGDecoder().decode(try Fixtures.pngSuite(name), limits: .default)
        #expect(image.width == entry.width)
        #expect(image.height == entry.height)
        #expect(image.pixelFormat == .rgba8)
        #expect(image.bytesPerRow == entry.width * 4)
        #expect(image.sourceFormat == .png)
        let reference = try Fixtures.reference(name)
        #expect(image.pixels.count == reference.count)
        let firstDifference = zip(image.pixels, reference).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(firstDifference == nil, "\(name): first differing byte \(String(describing: firstDifference))")
    }

    /// A few values spelled out, so a reader can see what the references hold.
    @Test func samplePixels() throws {
        let decoder = PNGDecoder()
        func pixel(_ name: String, _ x: Int, _ y: Int) throws -> [UInt8] {
            let image = try decoder.decode(try Fixtures.pngSuite(name), limits: .default)
            let i = (y * image.width + x) * 4
            return Array(image.pixels[i..<i + 4])
        }
        // Gray 8-bit becomes R = G = B with opaque alpha.
        let gray = try pixel("basn0g08", 5, 9)
        #expect(gray[0] == gray[1] && gray[1] == gray[2] && gray[3] == 255)
        // 1-bit gray is pure black or white.
        #expect(Set(try decoder.decode(try Fixtures.pngSuite("basn0g01"), limits: .default).pixels) == [0, 255])
        // RGBA with alpha ramps has fully transparent and fully opaque pixels.
        let rgba = try decoder.decode(try Fixtures.pngSuite("basn6a08"), limits: .default)
        let alphas = Set(stride(from: 3, to: rgba.pixels.count, by: 4).map { rgba.pixels[$0] })
        #expect(alphas.contains(0) && alphas.contains(255))
        // Palette with tRNS: some entries are transparent.
        let palette = try decoder.decode(try Fixtures.pngSuite("tbbn3p08"), limits: .default)
        #expect(stride(from: 3, to: palette.pixels.count, by: 4).contains { palette.pixels[$0] == 0 })
    }

    @Test func interlacedAndPlainVersionsDecodeAlike() throws {
        let decoder = PNGDecoder()
        for (interlaced, plain) in [
            ("basi0g01", "basn0g01"), ("basi2c16", "basn2c16"), ("basi3p04", "basn3p04"),
            ("basi6a08", "basn6a08"), ("s07i3p02", "s07n3p02"), ("s39i3p04", "s39n3p04")
        ] {
            let a = try decoder.decode(try Fixtures.pngSuite(interlaced), limits: .default)
            let b = try decoder.decode(try Fixtures.pngSuite(plain), limits: .default)
            #expect(a == b, "\(interlaced) vs \(plain)")
        }
    }

    @Test func sniffsPNGBytesOnly() throws {
        let decoder = PNGDecoder()
        #expect(decoder.name == "png")
        #expect(decoder.format == .png)
        #expect(decoder.canDecode(try Fixtures.pngSuite("basn2c08").prefix(16)))
        #expect(!decoder.canDecode(Data("GIF89a......".utf8)))
    }
}
