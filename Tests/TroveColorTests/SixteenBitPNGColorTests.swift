import CLCMS2
import Foundation
import Testing
import Trove
import TroveCodec
import TroveColor
import TroveCore
import TroveTestSupport

/// 16-bit PNGs under a colour description are converted before their samples are rounded to 8 bits. The files
/// hold linear light (a gAMA of 1.0, or a linear ICC profile), dark enough that rounding to 8 bits first would
/// lose most of the ramp: the reference is sRGB's own encoding, computed here, not by LittleCMS.
@Suite struct SixteenBitPNGColorTests {
    /// 256 pixels whose linear values climb in steps of 16/65535, each far below one 8-bit step.
    static let ramp = (0..<256).map { $0 * 16 }

    /// sRGB's encoding of a linear value, 0...255.
    static func sRGB(_ linear: Int) -> Double {
        let v = Double(linear) / 65535
        return 255 * (v <= 0.003_130_8 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055)
    }

    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }

    static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in typed {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return be32(body.count) + typed + be32(Int(crc ^ 0xFFFF_FFFF))
    }

    /// A one-row 16-bit PNG of colour type `colorType` (0 gray, 2 RGB, 4 gray+alpha, 6 RGBA) with `pixel`'s
    /// samples for each ramp value, interlaced when asked, and `extra` chunks before IDAT.
    static func png(
        colorType: UInt8, interlaced: Bool = false, extra: [UInt8], pixel: (Int) -> [Int]
    ) throws -> Data {
        let ihdr = be32(ramp.count) + be32(1) + [16, colorType, 0, 0, interlaced ? 1 : 0]
        var raw: [UInt8] = []
        if interlaced {
            // One row: Adam7 passes 1, 2, 4 and 6 take columns 8k, 8k+4, 4k+2 and 2k+1 of it.
            for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
                raw += [0] + stride(from: start, to: ramp.count, by: step).flatMap { pixel(ramp[$0]).flatMap(be16) }
            }
        } else {
            raw = [0] + ramp.flatMap { pixel($0).flatMap(be16) }
        }
        let idat = [UInt8](try ZlibCompressor().compress(Data(raw), level: 6))
        let bytes =
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + extra + chunk("IDAT", idat)
            + chunk("IEND", [])
        return Data(bytes)
    }

    /// gAMA 1.0: linear light.
    static let linearGamma = chunk("gAMA", be32(100_000))

    /// An RGB profile with sRGB's primaries and white and a linear curve, as LittleCMS builds it.
    static func linearProfile() throws -> [UInt8] {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: 0.640, y: 0.330, Y: 1), Green: cmsCIExyY(x: 0.300, y: 0.600, Y: 1),
            Blue: cmsCIExyY(x: 0.150, y: 0.060, Y: 1))
        let curve = try #require(cmsBuildGamma(nil, 1.0))
        defer { cmsFreeToneCurve(curve) }
        return try ColorCases.rgbProfile(white: &white, primaries: &primaries, curve: curve)
    }

    static func iccp(_ profile: [UInt8]) throws -> [UInt8] {
        chunk("iCCP", Array("linear".utf8) + [0, 0] + [UInt8](try ZlibCompressor().compress(Data(profile), level: 6)))
    }

    static func converter() throws -> any ColorConverter {
        var registry = PluginRegistry.standard
        try registry.install(TroveColorPlugin())
        return try #require(registry.colorConverter)
    }

    /// The largest difference between channel `channel` of each pixel and `expected` of its ramp value.
    static func worstError(_ pixels: [UInt8], channel: Int, expected: (Int) -> Double) -> Double {
        ramp.indices.map { abs(Double(pixels[4 * $0 + channel]) - expected(ramp[$0])) }.max() ?? .infinity
    }

    @Test(arguments: [false, true])
    func linearRGBIsConvertedBeforeRounding(interlaced: Bool) throws {
        let converter = try Self.converter()
        let data = try Self.png(colorType: 2, interlaced: interlaced, extra: Self.linearGamma) { [$0, $0, $0] }
        let image = try PNGDecoder().decode(data, options: DecodingOptions(colorConverter: converter))
        #expect(image.colorDescription == nil)
        for channel in 0..<3 {
            #expect(Self.worstError(image.pixels, channel: channel, expected: Self.sRGB) <= 1)
        }
        #expect(Self.ramp.indices.allSatisfy { image.pixels[4 * $0 + 3] == 255 })

        // Rounded first, then converted by the colour stage, the darkest steps collapse to black.
        var rounded = try PNGDecoder().decode(data, limits: .default)
        let description = try #require(rounded.colorDescription)
        #expect(description.gamma == 1.0)
        let late = try #require(try converter.transformToSRGB(from: description, samples: .rgba8))
        late.apply(to: &rounded)
        #expect(Self.worstError(rounded.pixels, channel: 0, expected: Self.sRGB) > 5)
    }

    @Test func aDamagedProfileMeansSRGBAndTheSamplesAreRoundedAsStored() throws {
        let converter = try Self.converter()
        var profile = try Self.linearProfile()
        profile.replaceSubrange(128..<profile.count, with: [UInt8](repeating: 0xEE, count: profile.count - 128))
        let data = try Self.png(colorType: 2, extra: try Self.iccp(profile)) { [$0, $0, $0] }
        let image = try PNGDecoder().decode(data, options: DecodingOptions(colorConverter: converter))
        #expect(image.colorDescription == nil)
        for (index, value) in Self.ramp.enumerated() {
            #expect(Int(image.pixels[4 * index]) == (value * 255 + 32767) / 65535)
        }
    }

    @Test func linearGammaOnGrayWithAlphaConvertsAndRoundsAlpha() throws {
        let converter = try Self.converter()
        let data = try Self.png(colorType: 4, extra: Self.linearGamma) { [$0, 65535 - 200 * ($0 / 16)] }
        let image = try PNGDecoder().decode(data, options: DecodingOptions(colorConverter: converter))
        #expect(image.colorDescription == nil)
        for channel in 0..<3 {
            #expect(Self.worstError(image.pixels, channel: channel, expected: Self.sRGB) <= 1)
        }
        for (index, value) in Self.ramp.enumerated() {
            let alpha = 65535 - 200 * (value / 16)
            #expect(Int(image.pixels[4 * index + 3]) == (alpha * 255 + 32767) / 65535)
        }
    }

    @Test func rowsStreamedIntoAResizeAreConvertedBeforeRounding() throws {
        let converter = try Self.converter()
        let data = try Self.png(colorType: 6, extra: try Self.iccp(try Self.linearProfile())) { [$0, $0, $0, 65535] }
        let sink = CollectingRowSink()
        try PNGDecoder().decode(data, options: DecodingOptions(colorConverter: converter), into: sink)
        #expect(sink.header?.colorDescription == nil)
        #expect(Self.worstError(sink.pixels, channel: 1, expected: Self.sRGB) <= 1)
    }

    @Test func aTransparentKeyIsMatchedOnTheSixteenBitSamples() throws {
        let converter = try Self.converter()
        // tRNS names ramp value 32 (index 2); value 48 rounds to the same 8-bit sample but stays opaque.
        let trns = Self.chunk("tRNS", [32, 32, 32].flatMap(Self.be16))
        let data = try Self.png(colorType: 2, extra: Self.linearGamma + trns) { [$0, $0, $0] }
        let image = try PNGDecoder().decode(data, options: DecodingOptions(colorConverter: converter))
        #expect(image.pixels[4 * 2 + 3] == 0)
        #expect(image.pixels.enumerated().filter { $0.offset % 4 == 3 && $0.element == 0 }.count == 1)
    }

    @Test func aKeptProfileLeavesSixteenBitSamplesAsStoredAndKeepsIt() throws {
        let converter = try Self.converter()
        let profile = try Self.linearProfile()
        let data = try Self.png(colorType: 2, extra: try Self.iccp(profile)) { [$0, $0, $0] }
        let (kept, _) = try PNGDecoder().decode(
            data, limits: .default, for: [], colorConverter: converter, keepsColorProfile: true)
        #expect(kept.colorDescription?.iccProfile == profile)
        for (index, value) in Self.ramp.enumerated() {
            #expect(Int(kept.pixels[4 * index]) == (value * 255 + 32767) / 65535)
        }
        // Not kept, the same file converts through its profile before rounding.
        let (converted, _) = try PNGDecoder().decode(data, limits: .default, for: [], colorConverter: converter)
        #expect(converted.colorDescription == nil)
        #expect(Self.worstError(converted.pixels, channel: 0, expected: Self.sRGB) <= 1)
    }

    @Test func throughTheCLIASixteenBitPhotoKeepsItsDarkSteps() async throws {
        // `trove convert` installs TroveColor: the written PNG holds the sRGB encoding of each linear step.
        let data = try Self.png(colorType: 2, extra: Self.linearGamma) { [$0, $0, $0] }
        try await withTemporaryDirectory { directory in
            let input = directory.appendingPathComponent("linear16.png")
            let output = directory.appendingPathComponent("out.png")
            try data.write(to: input)
            let result = try await runSubprocess(
                productsDirectory().appendingPathComponent("trove"), ["convert", input.path, output.path],
                environment: ["TROVE_CACHE_DIR": directory.path])
            try #require(result.status == 0, "\(result.stderr)")
            let written = try PNGDecoder().decode(Data(contentsOf: output), limits: .default)
            #expect(Self.worstError(written.pixels, channel: 2, expected: Self.sRGB) <= 1)
        }
    }
}
