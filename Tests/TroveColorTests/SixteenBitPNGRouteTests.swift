import CLCMS2
import Foundation
import Testing
import Trove
import TroveCodec
import TroveColor
import TroveCore
import TroveTestSupport

/// Every 16-bit colour type (gray, RGB, gray+alpha, RGBA), under every colour description a PNG can carry (an ICC
/// profile, gAMA, gAMA with cHRM, sRGB), through every route a decode takes: whole, Adam7, reduced while the rows
/// are unfiltered, and streamed rows at full and reduced size. Rows are 256 pixels (2 KiB of RGBA16), past the
/// size at which a 16-bit conversion once trapped in release builds. Each pixel is checked against sRGB's encoding
/// of its sample, computed here; alpha against PNG's own 16-to-8 rounding.
@Suite struct SixteenBitPNGRouteTests {
    /// How the file describes its colours.
    enum Description: String, CaseIterable, CustomStringConvertible {
        case icc, gamma, gammaAndChromaticities, sRGB
        var description: String { rawValue }
    }

    /// How the decode is asked for.
    enum Route: String, CaseIterable, CustomStringConvertible {
        case whole, adam7, reduced, streamed, streamedReduced
        var description: String { rawValue }
    }

    static let width = 256, height = 4
    /// Sample x of a row: pairs of equal samples climbing in steps of 64/65535, so a 2x2 box average of the
    /// decoded pixels equals each of its pixels.
    static func sample(_ x: Int) -> Int { (x / 2) * 64 }
    /// Alpha of pixel x where the type has alpha: never 0, so the box average does not weigh colours away.
    static func alpha(_ x: Int) -> Int { 65535 - (x / 2) * 200 }

    static func channels(_ colorType: UInt8) -> Int { [0: 1, 2: 3, 4: 2, 6: 4][colorType] ?? 0 }

    /// The stored samples of pixel x.
    static func pixel(_ colorType: UInt8, _ x: Int) -> [Int] {
        switch colorType {
        case 0: [sample(x)]
        case 2: [sample(x), sample(x), sample(x)]
        case 4: [sample(x), alpha(x)]
        default: [sample(x), sample(x), sample(x), alpha(x)]
        }
    }

    /// A linear profile (gray for the gray types, RGB with sRGB's primaries for the others), as LittleCMS builds it.
    static func linearProfile(gray: Bool) throws -> [UInt8] {
        if !gray { return try SixteenBitPNGColorTests.linearProfile() }
        let curve = try #require(cmsBuildGamma(nil, 1.0))
        defer { cmsFreeToneCurve(curve) }
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        let profile = try #require(cmsCreateGrayProfile(&white, curve))
        defer { cmsCloseProfile(profile) }
        var length: cmsUInt32Number = 0
        try #require(cmsSaveProfileToMem(profile, nil, &length) != 0)
        var bytes = [UInt8](repeating: 0, count: Int(length))
        try #require(cmsSaveProfileToMem(profile, &bytes, &length) != 0)
        return bytes
    }

    /// The chunks that say `description` (linear light, except sRGB).
    static func chunks(_ description: Description, colorType: UInt8) throws -> [UInt8] {
        let png = SixteenBitPNGColorTests.self
        switch description {
        case .icc: return try png.iccp(try linearProfile(gray: channels(colorType) < 3))
        case .gamma: return png.linearGamma
        case .gammaAndChromaticities:
            let sRGBPrimaries = [31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000]
            return png.linearGamma + png.chunk("cHRM", sRGBPrimaries.flatMap(png.be32))
        case .sRGB: return png.chunk("sRGB", [0])
        }
    }

    /// A `width` x `height` 16-bit PNG whose rows are all alike, interlaced when asked.
    static func file(colorType: UInt8, description: Description, interlaced: Bool) throws -> Data {
        let png = SixteenBitPNGColorTests.self
        func row(_ columns: StrideTo<Int>) -> [UInt8] {
            [0] + columns.flatMap { pixel(colorType, $0).flatMap(png.be16) }
        }
        var raw: [UInt8] = []
        if interlaced {
            // Adam7: (x start, x step, y start, y step) of the seven passes.
            let passes = [
                (0, 8, 0, 8), (4, 8, 0, 8), (0, 4, 4, 8), (2, 4, 0, 4), (0, 2, 2, 4), (1, 2, 0, 2), (0, 1, 1, 2)
            ]
            for (x0, dx, y0, dy) in passes where y0 < height {
                raw += stride(from: y0, to: height, by: dy).flatMap { _ in row(stride(from: x0, to: width, by: dx)) }
            }
        } else {
            raw = (0..<height).flatMap { _ in row(stride(from: 0, to: width, by: 1)) }
        }
        let ihdr = png.be32(width) + png.be32(height) + [16, colorType, 0, 0, interlaced ? 1 : 0]
        let idat = [UInt8](try ZlibCompressor().compress(Data(raw), level: 6))
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        return Data(
            signature + png.chunk("IHDR", ihdr) + (try chunks(description, colorType: colorType))
                + png.chunk("IDAT", idat) + png.chunk("IEND", []))
    }

    /// Converted, or said to be sRGB already (the sRGB chunk): either way nothing is left to convert.
    static func meansSRGB(_ description: ColorDescription?) -> Bool {
        description == nil || description == ColorDescription(isSRGB: true)
    }

    /// The RGBA8 rows the route gives, and their width.
    static func decode(_ data: Data, route: Route, converter: any ColorConverter) throws -> (
        pixels: [UInt8], width: Int
    ) {
        let reducedSize = PixelSize(width: width / 2, height: height / 2)
        switch route {
        case .whole, .adam7:
            let image = try PNGDecoder().decode(data, options: DecodingOptions(colorConverter: converter))
            #expect(Self.meansSRGB(image.colorDescription))
            return (image.pixels, image.width)
        case .reduced:
            let options = DecodingOptions(minimumSize: reducedSize, colorConverter: converter)
            let image = try PNGDecoder().decode(data, options: options)
            #expect(image.width == width / 2 && image.height == height / 2)
            return (image.pixels, image.width)
        case .streamed, .streamedReduced:
            let sink = CollectingRowSink()
            let options = DecodingOptions(
                minimumSize: route == .streamed ? nil : reducedSize, colorConverter: converter)
            try PNGDecoder().decode(data, options: options, into: sink)
            let header = try #require(sink.header)
            #expect(Self.meansSRGB(header.colorDescription))
            #expect(sink.rows == header.height)
            return (sink.pixels, header.width)
        }
    }

    @Test(arguments: [UInt8(0), 2, 4, 6], Description.allCases)
    func everyRouteConvertsBeforeRounding(colorType: UInt8, description: Description) throws {
        let converter = try SixteenBitPNGColorTests.converter()
        let hasAlpha = colorType == 4 || colorType == 6
        for route in Route.allCases {
            let data = try Self.file(colorType: colorType, description: description, interlaced: route == .adam7)
            let (pixels, decodedWidth) = try Self.decode(data, route: route, converter: converter)
            let scale = Self.width / decodedWidth
            try #require(pixels.count == decodedWidth * 4 * (Self.height / scale), "\(route)")
            var worst = 0.0
            var alphaMismatches = 0
            for index in 0..<(pixels.count / 4) {
                let x = (index % decodedWidth) * scale
                let value = Self.sample(x)
                let expected =
                    description == .sRGB ? Double((value * 255 + 32767) / 65535) : SixteenBitPNGColorTests.sRGB(value)
                for channel in 0..<3 { worst = max(worst, abs(Double(pixels[4 * index + channel]) - expected)) }
                let alpha = hasAlpha ? (Self.alpha(x) * 255 + 32767) / 65535 : 255
                if Int(pixels[4 * index + 3]) != alpha { alphaMismatches += 1 }
            }
            #expect(worst <= 1, "\(route): colour off by \(worst)")
            #expect(alphaMismatches == 0, "\(route): \(alphaMismatches) alpha values differ")
        }
    }

    @Test(arguments: [UInt8(0), 2, 4, 6])
    func throughThePipelineWithAResizeAndAKeptProfile(colorType: UInt8) async throws {
        // The request's own path: decode with colour management, a shrinking resize streamed from the rows, and
        // the same with the profile kept; each gives an image of the asked size. An RGB profile is kept with the
        // pixels; a gray one cannot describe the RGBA pixels a PNG decodes to, so they are converted.
        var registry = PluginRegistry.standard
        try registry.install(TroveColorPlugin())
        let pipeline = try ImagePipeline(registry: registry, configuration: .memoryOnly)
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("gray16.png")
            try Self.file(colorType: colorType, description: .icc, interlaced: false).write(to: file)
            let resize = ResizeTransformer(width: 64, height: 64, mode: .fit, filter: .lanczos3)
            for options in [ImageRequest.Options(), [.keepsColorProfile]] {
                let request = ImageRequest(url: file, transforms: [resize], options: options)
                let response = try await pipeline.image(for: request)
                #expect(response.image.width == 64 && response.image.height == 1)
                let kept = !options.isEmpty && Self.channels(colorType) >= 3
                #expect(kept == (response.image.colorDescription != nil))
            }
        }
    }
}
