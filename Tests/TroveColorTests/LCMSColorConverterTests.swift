import Foundation
import Testing
import Trove
import TroveColor
import TroveCore

@Suite struct LCMSColorConverterTests {
    static func profile(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: ColorCases.colord + name)))
    }

    /// Every 8-bit value of each channel once, with alpha varying, as RGBA8.
    static func ramp() -> [UInt8] {
        (0..<256).flatMap { value -> [UInt8] in
            let v = UInt8(value)
            return [v, 255 - v, v / 2, UInt8((value * 7) % 256)]
        }
    }

    static func converted(_ pixels: [UInt8], by transform: any ColorTransform) -> [UInt8] {
        var pixels = pixels
        pixels.withUnsafeMutableBufferPointer { transform.apply($0.baseAddress!, count: $0.count / 4) }
        return pixels
    }

    /// sRGB's own profile needs no conversion: no transform, so its pixels are kept exactly.
    @Test func sRGBsOwnProfileIsNotConverted() throws {
        let converter = LCMSColorConverter()
        let sRGB = ColorDescription(iccProfile: try Self.profile("sRGB.icc"))
        #expect(try converter.transformToSRGB(from: sRGB, samples: .rgba8) == nil)
        #expect(try converter.transformToSRGB(from: sRGB, samples: .rgba16BigEndian) == nil)
    }

    /// A profile a hair from sRGB (its red X 0.0006 lower, 0.0009 from sRGB's: past what `SRGBProfile`
    /// accepts) goes through LittleCMS, which changes nothing to speak of and alpha not at all.
    @Test func aNearlySRGBProfileChangesNothingToSpeakOfAndAlphaNotAtAll() throws {
        let converter = LCMSColorConverter()
        var bytes = try Self.profile("sRGB.icc")
        let red = try #require(ICCTagTable(bytes)["rXYZ"]).lowerBound + 8
        let x = bytes[red..<red + 4].reduce(0) { $0 << 8 | Int($1) } - 40
        bytes.replaceSubrange(red..<red + 4, with: (0..<4).map { UInt8(truncatingIfNeeded: x >> (24 - 8 * $0)) })
        #expect(!SRGBProfile.describes(bytes))
        let transform = try #require(
            try converter.transformToSRGB(from: ColorDescription(iccProfile: bytes), samples: .rgba8))
        let ramp = Self.ramp(), out = Self.converted(ramp, by: transform)
        for index in ramp.indices {
            if index % 4 == 3 {
                #expect(out[index] == ramp[index], "alpha changed at \(index)")
            } else {
                #expect(
                    abs(Int(out[index]) - Int(ramp[index])) <= 2, "channel \(index): \(ramp[index]) -> \(out[index])")
            }
        }
    }

    @Test func widerGamutsPullSaturatedColoursIn() throws {
        let converter = LCMSColorConverter()
        for name in ["ProPhotoRGB.icc", "AdobeRGB1998.icc"] {
            let transform = try #require(
                try converter.transformToSRGB(
                    from: ColorDescription(iccProfile: try Self.profile(name)), samples: .rgba8))
            // A middling green of the wide space lies outside sRGB: red is clipped to 0, green grows.
            let out = Self.converted([60, 160, 60, 255], by: transform)
            #expect(out[1] > 160 && out[0] < 60, "\(name): \(out)")
            // Neutrals stay neutral.
            let gray = Self.converted([128, 128, 128, 255], by: transform)
            #expect(abs(Int(gray[0]) - Int(gray[1])) <= 1 && abs(Int(gray[1]) - Int(gray[2])) <= 1, "\(name): \(gray)")
        }
    }

    @Test func cicpDisplayP3MatchesTheDisplayP3Profile() throws {
        let converter = LCMSColorConverter()
        let cicp = ColorDescription(cicp: .init(primaries: 12, transfer: 13, matrix: 6, fullRange: true))
        let icc = ColorDescription(iccProfile: try ColorCases.displayP3Profile())
        let fromCICP = try #require(try converter.transformToSRGB(from: cicp, samples: .rgba8))
        let fromICC = try #require(try converter.transformToSRGB(from: icc, samples: .rgba8))
        let ramp = Self.ramp()
        let a = Self.converted(ramp, by: fromCICP), b = Self.converted(ramp, by: fromICC)
        #expect(zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        #expect(a != ramp, "P3 is not sRGB")
        // BT.2020 is wider still: the same ramp moves further.
        let bt2020 = try #require(
            try converter.transformToSRGB(
                from: ColorDescription(cicp: .init(primaries: 9, transfer: 13, matrix: 9, fullRange: true)),
                samples: .rgba8))
        let c = Self.converted(ramp, by: bt2020)
        func distance(_ x: [UInt8]) -> Int { zip(x, ramp).map { abs(Int($0) - Int($1)) }.reduce(0, +) }
        #expect(distance(c) > distance(a))
    }

    @Test func sRGBSaidAnyWayNeedsNoTransform() throws {
        let converter = LCMSColorConverter()
        #expect(try converter.transformToSRGB(from: ColorDescription(isSRGB: true), samples: .rgba8) == nil)
        #expect(
            try converter.transformToSRGB(
                from: ColorDescription(cicp: .init(primaries: 1, transfer: 13, matrix: 6, fullRange: true)),
                samples: .rgba8) == nil)
        #expect(try converter.transformToSRGB(from: ColorDescription(gamma: 0.45455), samples: .rgba8) == nil)
        #expect(converter.cachedTransformCount == 0)
    }

    @Test func pngGammaOfOneIsLinearLight() throws {
        let converter = LCMSColorConverter()
        let transform = try #require(
            try converter.transformToSRGB(from: ColorDescription(gamma: 1.0), samples: .rgba8))
        let out = Self.converted([128, 64, 10, 255], by: transform)
        for (channel, value) in [128.0, 64, 10].enumerated() {
            // sRGB's encoding of the linear value (IEC 61966-2-1).
            let linear = value / 255
            let encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
            #expect(abs(Double(out[channel]) - encoded * 255) <= 1.5, "channel \(channel): \(out[channel])")
        }
    }

    @Test func damagedAndMismatchedProfilesAreRefusedWithTheReason() throws {
        let converter = LCMSColorConverter()
        var damaged = try Self.profile("AdobeRGB1998.icc")
        for index in 128..<damaged.count { damaged[index] = 0xEE }
        #expect {
            try converter.transformToSRGB(from: ColorDescription(iccProfile: damaged), samples: .rgba8)
        } throws: { ($0 as? ColorConversionError)?.reason.contains("damaged") == true }
        #expect {
            try converter.transformToSRGB(from: ColorDescription(iccProfile: [1, 2, 3]), samples: .rgba8)
        } throws: { ($0 as? ColorConversionError)?.reason.contains("damaged") == true }
        let cmyk = [UInt8](try Data(contentsOf: URL(fileURLWithPath: ColorCases.cmykProfilePath)))
        #expect {
            try converter.transformToSRGB(from: ColorDescription(iccProfile: cmyk), samples: .rgba8)
        } throws: {
            ($0 as? ColorConversionError)?.reason == "the ICC profile is for 'CMYK' colours but the pixels are RGB"
        }
        #expect {
            try converter.transformToSRGB(
                from: ColorDescription(cicp: .init(primaries: 9, transfer: 16, matrix: 9, fullRange: true)),
                samples: .rgba8)
        } throws: { ($0 as? ColorConversionError)?.reason.contains("transfer characteristics 16") == true }
        // Nothing that failed is kept.
        #expect(converter.cachedTransformCount == 0)
    }

    @Test func transformsAreCachedByProfileWithinTheBound() throws {
        let converter = LCMSColorConverter(cacheCapacity: 2)
        let adobe = ColorDescription(iccProfile: try Self.profile("AdobeRGB1998.icc"))
        let first = try #require(try converter.transformToSRGB(from: adobe, samples: .rgba8))
        let second = try #require(try converter.transformToSRGB(from: adobe, samples: .rgba8))
        let sameObject = ObjectIdentifier(first as AnyObject) == ObjectIdentifier(second as AnyObject)
        #expect(sameObject)
        #expect(converter.cachedTransformCount == 1)
        for name in ["ProPhotoRGB.icc", "WideGamutRGB.icc", "BestRGB.icc"] {
            _ = try converter.transformToSRGB(
                from: ColorDescription(iccProfile: try Self.profile(name)), samples: .rgba8)
            #expect(converter.cachedTransformCount <= 2)
        }
    }

    @Test func cmykWithoutAProfileGoesThroughTheDefaultPressProfile() throws {
        let converter = LCMSColorConverter()
        let transform = try #require(
            try converter.transformToSRGB(
                from: ColorDescription(cmyk: .init(isInverted: false)), samples: .cmyk8))
        // No ink is paper white; full black ink is near black; alpha is opaque.
        let out = Self.converted([0, 0, 0, 0, 0, 0, 0, 255], by: transform)
        #expect(out[0] > 230 && out[1] > 230 && out[2] > 230 && out[3] == 255, "\(out)")
        #expect(out[4] < 80 && out[5] < 80 && out[6] < 80 && out[7] == 255, "\(out)")
        // Adobe's inverted samples: 255 means no ink.
        let inverted = try #require(
            try converter.transformToSRGB(from: ColorDescription(cmyk: .init(isInverted: true)), samples: .cmyk8))
        #expect(Self.converted([255, 255, 255, 255], by: inverted) == Array(out[0..<4]))
    }
}
