import Foundation
import Testing
import TroveCore
import TroveTestSupport

@testable import TroveJPEG

/// Planar decoding (`jpeg_read_raw_data`) and encoding (`jpeg_write_raw_data`) through the shim.
@Suite struct JPEGPlanarTests {
    /// Keeps every row of every plane.
    final class PlaneCollector: PlaneRowSink {
        var header: PlanarStreamHeader?
        var planes: [[UInt8]] = [[], [], []]

        func begin(_ header: PlanarStreamHeader) throws { self.header = header }

        func consume(plane: Int, row: UnsafePointer<UInt8>) throws {
            guard let header else { throw TroveError.invalidConfiguration("row before begin") }
            planes[plane].append(contentsOf: UnsafeBufferPointer(start: row, count: header.planes[plane].width))
        }
    }

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: JPEGFixtures.root.appendingPathComponent("planar/\(name).jpg"))
    }

    /// Each sampling gives its planes at their own sizes, every row once; the decoder reports its factors.
    @Test(arguments: [
        ("coffee-444", SamplingFactors(1, 1), 600, 400, 1.0, 1.0),
        ("coffee-422", SamplingFactors(2, 1), 300, 400, 2.0, 1.0),
        ("coffee-420", SamplingFactors(2, 2), 300, 200, 2.0, 2.0),
        ("tiny-17x9", SamplingFactors(2, 2), 9, 5, 2.0, 2.0),
        ("one-1x1", SamplingFactors(2, 2), 1, 1, 2.0, 2.0)
    ])
    func planesAtEachSampling(
        _ name: String, luma: SamplingFactors, chromaWidth: Int, chromaHeight: Int, spanX: Double, spanY: Double
    ) throws {
        let data = try Self.fixture(name)
        let sink = PlaneCollector()
        var seen: PlanarSourceFacts?
        let decoded = try JPEGDecoder().decodePlanes(
            data, options: DecodingOptions(),
            accepts: {
                seen = $0; return true
            }, into: sink)
        #expect(decoded)
        #expect(seen?.colorModel == .yCbCr && seen?.sampling == [luma, SamplingFactors(1, 1), SamplingFactors(1, 1)])
        let header = try #require(sink.header)
        let width = header.width, height = header.height
        #expect(header.planes[0] == PlaneLayout(width: width, height: height, spanX: 1, spanY: 1))
        for plane in 1...2 {
            #expect(
                header.planes[plane]
                    == PlaneLayout(width: chromaWidth, height: chromaHeight, spanX: spanX, spanY: spanY))
        }
        for plane in 0...2 {
            #expect(sink.planes[plane].count == header.planes[plane].width * header.planes[plane].height)
        }
    }

    /// At full size, 4:4:4 planes converted to RGB are libjpeg's own RGBA decode, within its rounding.
    @Test func fullSizePlanesAreTheDecodedPixels() throws {
        let data = try Self.fixture("coffee-444")
        let sink = PlaneCollector()
        _ = try JPEGDecoder().decodePlanes(data, options: DecodingOptions(), accepts: { _ in true }, into: sink)
        let rgba = try JPEGDecoder().decode(data, limits: .default)
        var worst = 0
        for i in stride(from: 0, to: 600 * 400, by: 97) {
            let y = Double(sink.planes[0][i]), cr = Double(sink.planes[2][i]) - 128
            let red = min(max((y + 1.402 * cr).rounded(), 0), 255)
            worst = max(worst, abs(Int(red) - Int(rgba.pixels[4 * i])))
        }
        #expect(worst <= 1)
    }

    /// 4:2:0 planes at full size, as an RGBA image (`YCbCrPlanes.rgbaImage`), are libjpeg-turbo's own decode
    /// of the file, chroma upsampling included, within a level: each chroma sample used for its 2x2 pixels
    /// alone (no upsampling) strays by up to 32 levels on the coffee photo and 57 on the rocket.
    @Test(arguments: ["coffee-420", "rocket-420", "tiny-17x9"])
    func rgbaImageUpsamplesChromaAsLibjpegDoes(_ name: String) throws {
        let data = try Self.fixture(name)
        let sink = PlaneCollector()
        _ = try JPEGDecoder().decodePlanes(data, options: DecodingOptions(), accepts: { _ in true }, into: sink)
        let header = try #require(sink.header)
        let planes = try #require(
            YCbCrPlanes(
                width: header.width, height: header.height, y: sink.planes[0], cb: sink.planes[1],
                cr: sink.planes[2]))
        let image = planes.rgbaImage(sourceFormat: .jpeg)
        let decoded = try JPEGDecoder().decode(data, limits: .default)
        try #require(image.pixels.count == decoded.pixels.count)
        var worst = 0, differing = 0
        for (a, b) in zip(image.pixels, decoded.pixels) where a != b {
            worst = max(worst, abs(Int(a) - Int(b)))
            differing += 1
        }
        #expect(worst <= 1, "\(name): \(differing) samples differ, by up to \(worst)")
    }

    /// Reduced as the RGBA decode reduces: the same size at the same minimum.
    @Test func reducedLikeTheRGBADecode() throws {
        let data = try Self.fixture("coffee-420")
        let options = DecodingOptions(minimumSize: PixelSize(width: 150, height: 100))
        let sink = PlaneCollector()
        _ = try JPEGDecoder().decodePlanes(data, options: options, accepts: { _ in true }, into: sink)
        let rgba = try JPEGDecoder().decode(data, options: options)
        #expect(sink.header?.width == rgba.width && sink.header?.height == rgba.height)
        #expect(sink.planes[0].count == rgba.width * rgba.height)
    }

    @Test func declinedFactsDecodeNothing() throws {
        let sink = PlaneCollector()
        let decoded = try JPEGDecoder().decodePlanes(
            try Self.fixture("coffee-420"), options: DecodingOptions(), accepts: { _ in false }, into: sink)
        #expect(!decoded && sink.header == nil)
    }

    /// Gray and CMYK files are reported as such; taking one anyway is an error, never a crash.
    @Test(arguments: [("gray", PlanarSourceFacts.ColorModel.gray), ("cmyk", .other)])
    func otherColorModels(_ name: String, model: PlanarSourceFacts.ColorModel) throws {
        var seen: PlanarSourceFacts?
        #expect(throws: TroveError.self) {
            _ = try JPEGDecoder().decodePlanes(
                try JPEGFixtures.jpeg(name), options: DecodingOptions(),
                accepts: {
                    seen = $0; return true
                },
                into: PlaneCollector())
        }
        #expect(seen?.colorModel == model)
    }

    /// A file cut short, or cut and padded with junk, fails with `decodingFailed`.
    @Test(arguments: [0.1, 0.5, 0.95])
    func truncatedFilesFail(keeping fraction: Double) throws {
        let data = try Self.fixture("coffee-420")
        let cut = data.prefix(Int(Double(data.count) * fraction))
        #expect(throws: TroveError.self) {
            _ = try JPEGDecoder().decodePlanes(
                Data(cut), options: DecodingOptions(), accepts: { _ in true }, into: PlaneCollector())
        }
    }

    /// Without only its end marker a sequential file's planes are the whole file's.
    @Test func aMissingEndMarkerAloneGivesWholePlanes() throws {
        let data = try Self.fixture("coffee-420")
        let whole = PlaneCollector(), headless = PlaneCollector()
        _ = try JPEGDecoder().decodePlanes(data, options: DecodingOptions(), accepts: { _ in true }, into: whole)
        _ = try JPEGDecoder().decodePlanes(
            data.dropLast(2), options: DecodingOptions(), accepts: { _ in true }, into: headless)
        #expect(!whole.planes[0].isEmpty && headless.planes == whole.planes)
    }

    /// Planes a decode gave, encoded again: the picture survives, the markers are the image's, and the file is
    /// the size the RGBA encode of the same pixels gives, within 2%: pixels whose chroma is each sample repeated
    /// over its 2x2 block, which libjpeg's encoder averages back to the planes' own.
    @Test func encodedPlanesRoundTrip() throws {
        let data = try Self.fixture("coffee-420")
        let sink = PlaneCollector()
        _ = try JPEGDecoder().decodePlanes(data, options: DecodingOptions(), accepts: { _ in true }, into: sink)
        let planes = try #require(
            YCbCrPlanes(width: 600, height: 400, y: sink.planes[0], cb: sink.planes[1], cr: sink.planes[2]))
        var metadata = planes.rgbaImage(sourceFormat: .jpeg)
        metadata.copyright = CopyrightNotice(copyright: "© Trove")
        let encoded = try JPEGEncoder().encode(planes, metadata: metadata, options: EncodingOptions(quality: 0.8))
        let decoded = try JPEGDecoder().decode(encoded, limits: .default)
        let original = try JPEGDecoder().decode(data, limits: .default)
        #expect(psnr(decoded, original) > 33)
        #expect(JPEGSegments.exif(in: encoded) != nil)
        func repeated(_ chroma: [UInt8]) -> [UInt8] {
            (0..<(600 * 400)).map { chroma[($0 / 600 / 2) * 300 + ($0 % 600) / 2] }
        }
        var samePixels = try #require(
            YCbCrPlanes.rgbaImage(
                width: 600, height: 400, y: planes.y, cb: repeated(planes.cb), cr: repeated(planes.cr),
                sourceFormat: .jpeg))
        samePixels.copyright = metadata.copyright
        let viaRGBA = try JPEGEncoder().encode(samePixels, options: EncodingOptions(quality: 0.8))
        #expect(Double(encoded.count) <= Double(viaRGBA.count) * 1.02)
    }

    /// Odd sizes, down to a pixel: the chroma planes are half rounded up, padded to whole blocks by the shim.
    @Test(arguments: [(1, 1), (17, 9), (2, 1), (1, 2), (1001, 667)])
    func oddSizedPlanesEncode(width: Int, height: Int) throws {
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        let planes = try #require(
            YCbCrPlanes(
                width: width, height: height, y: (0..<(width * height)).map { UInt8(truncatingIfNeeded: $0) },
                cb: [UInt8](repeating: 100, count: chroma), cr: [UInt8](repeating: 150, count: chroma)))
        let encoded = try JPEGEncoder().encode(
            planes, metadata: planes.rgbaImage(sourceFormat: .jpeg), options: EncodingOptions(quality: 0.9))
        let decoded = try JPEGDecoder().decode(encoded, limits: .default)
        #expect(decoded.width == width && decoded.height == height)
    }
}
