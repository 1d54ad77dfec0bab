import CLCMS2
import Foundation
import Testing
import TroveColor
import TroveCore

/// The matrix-and-curves transform gives what LittleCMS's own transform of the same profile gives, to within a
/// level, on every profile it takes; profiles it does not take still go through lcms; 8-bit gray is lcms's own
/// result as a table.
@Suite struct MatrixShaperTransformTests {
    /// Every fifth value of each channel against every other (52³ pixels), alpha counting up, then ramps through
    /// every value of each channel.
    static let cube: [UInt8] = {
        let values = Array(stride(from: 0, through: 255, by: 5))
        var pixels: [UInt8] = []
        pixels.reserveCapacity(values.count * values.count * values.count * 4)
        for r in values {
            for g in values {
                for b in values {
                    pixels += [UInt8(r), UInt8(g), UInt8(b), UInt8(truncatingIfNeeded: pixels.count / 4)]
                }
            }
        }
        // And every value of each channel, alone, with the others full, and as gray: each table entry once.
        for value in 0...255 {
            let v = UInt8(value), w = UInt8(255 - value)
            pixels += [v, 0, 0, 1, 0, v, 0, 2, 0, 0, v, 3, v, 255, 255, 4, 255, v, 255, 5, 255, 255, v, 6]
            pixels += [v, v, v, 7, v, w, 128, 8]
        }
        return pixels
    }()

    /// What LittleCMS itself makes of `pixels` (RGBA8, or `input`) under the profile `bytes`, perceptual intent,
    /// as the converter asks it.
    static func lcms(
        _ pixels: [UInt8], profile bytes: [UInt8], input: cmsUInt32Number = trove_lcms_rgba8
    ) throws -> [UInt8] {
        let profile = try #require(bytes.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) })
        defer { cmsCloseProfile(profile) }
        let sRGB = try #require(cmsCreate_sRGBProfile())
        defer { cmsCloseProfile(sRGB) }
        let transform = try #require(
            cmsCreateTransform(
                profile, input, sRGB, trove_lcms_rgba8, cmsUInt32Number(INTENT_PERCEPTUAL),
                cmsUInt32Number(cmsFLAGS_NOCACHE)))
        defer { cmsDeleteTransform(transform) }
        var output = pixels
        output.withUnsafeMutableBytes { cmsDoTransform(transform, pixels, $0.baseAddress, UInt32(pixels.count / 4)) }
        return output
    }

    static func profiles() throws -> [(name: String, bytes: [UInt8])] {
        let folders = [ColorCases.colord, "/usr/share/color/icc/ghostscript/"]
        var found: [(String, [UInt8])] = []
        for folder in folders {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + name)))
                // Only RGB profiles describe RGB pixels (the converter refuses the others).
                guard bytes.count > 20, String(decoding: bytes[16..<20], as: UTF8.self) == "RGB " else { continue }
                found.append((name, bytes))
            }
        }
        found.append(("DisplayP3 (lcms)", try ColorCases.displayP3Profile()))
        return found
    }

    @Test func matchesLittleCMSOnEveryMatrixProfile() throws {
        let converter = LCMSColorConverter()
        var fast: [String] = [], other: [String] = []
        for (name, bytes) in try Self.profiles() {
            guard
                let transform = try? converter.transformToSRGB(
                    from: ColorDescription(iccProfile: bytes), samples: .rgba8)
            else { continue }
            let expected = try Self.lcms(Self.cube, profile: bytes)
            var got = Self.cube
            got.withUnsafeMutableBufferPointer { transform.apply($0.baseAddress!, count: $0.count / 4) }
            var worst = 0, differing = 0
            for index in got.indices {
                let difference = abs(Int(got[index]) - Int(expected[index]))
                worst = max(worst, difference)
                if difference > 0 { differing += 1 }
                if index % 4 == 3 { #expect(got[index] == Self.cube[index], "\(name): alpha changed") }
            }
            #expect(worst <= 1, "\(name): \(worst) levels from lcms")
            #expect(differing * 100 <= got.count, "\(name): \(differing) of \(got.count) samples differ")
            if transform is MatrixShaperTransform { fast.append(name) } else { other.append(name) }
        }
        // The profiles photos carry are matrices and curves.
        for name in ["AdobeRGB1998.icc", "ProPhotoRGB.icc", "DisplayP3 (lcms)", "a98.icc", "Rec709.icc"] {
            #expect(fast.contains(name), "\(name) went through lcms: \(other)")
        }
        #expect(fast.count >= 20, "matrix profiles: \(fast); others: \(other)")
    }

    /// PNG's gAMA and cHRM are built into a matrix profile, so they take the same path; gamma 1 is linear light.
    @Test func pngGammaAndChromaticitiesTakeTheMatrix() throws {
        let converter = LCMSColorConverter()
        let linear = try #require(try converter.transformToSRGB(from: ColorDescription(gamma: 1.0), samples: .rgba8))
        #expect(linear is MatrixShaperTransform)
        var pixels: [UInt8] = [0, 1, 128, 7, 255, 64, 10, 200]
        pixels.withUnsafeMutableBufferPointer { linear.apply($0.baseAddress!, count: 2) }
        // sRGB's encoding of 1/255, 128/255, 64/255 and 10/255 as linear light (IEC 61966-2-1), alpha kept.
        #expect(pixels == [0, 13, 188, 7, 255, 137, 56, 200])
    }

    /// A matrix profile that also carries a perceptual lookup table (A2B0), here one that makes every colour the
    /// same colour: LittleCMS converts through the table, so the converter leaves it to lcms.
    @Test func aProfileWithALookupTableGoesThroughLittleCMS() throws {
        let bytes = try Self.matrixProfile(withTable: cmsSigAToB0Tag)
        let transform = try #require(
            try LCMSColorConverter().transformToSRGB(from: ColorDescription(iccProfile: bytes), samples: .rgba8))
        #expect(!(transform is MatrixShaperTransform))
        var pixels: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 9, 20, 30, 200, 128]
        let expected = try Self.lcms(pixels, profile: bytes)
        pixels.withUnsafeMutableBufferPointer { transform.apply($0.baseAddress!, count: 3) }
        #expect(pixels == expected)
        // The table's one colour, not the matrix's red, green and blue.
        let colours: [[UInt8]] = [Array(pixels[0..<3]), Array(pixels[4..<7]), Array(pixels[8..<11])]
        #expect(colours.allSatisfy { $0 == colours[0] }, "\(colours)")
    }

    /// Display P3 as a matrix profile, plus a table for the perceptual intent (`tag`: A2B0, or the
    /// floating-point D2B0) of two points a side whose every node is one XYZ.
    static func matrixProfile(withTable tag: cmsTagSignature) throws -> [UInt8] {
        let p3 = try ColorCases.displayP3Profile()
        let profile = try #require(p3.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) })
        defer { cmsCloseProfile(profile) }
        let pipeline = try #require(cmsPipelineAlloc(nil, 3, 3))
        defer { cmsPipelineFree(pipeline) }
        if tag == cmsSigDToB0Tag {
            let nodes = [Float](repeating: 0.2, count: 8 * 3)
            let table = try #require(
                nodes.withUnsafeBufferPointer { cmsStageAllocCLutFloat(nil, 2, 3, 3, $0.baseAddress) })
            #expect(cmsPipelineInsertStage(pipeline, cmsAT_END, table) != 0)
        } else {
            let nodes = [UInt16](repeating: 0x1999, count: 8 * 3)
            let table = try #require(
                nodes.withUnsafeBufferPointer { cmsStageAllocCLut16bit(nil, 2, 3, 3, $0.baseAddress) })
            // Identity curves on either side of the table: the shape an ICC v4 'mAB ' table is written in.
            #expect(cmsPipelineInsertStage(pipeline, cmsAT_END, cmsStageAllocToneCurves(nil, 3, nil)) != 0)
            #expect(cmsPipelineInsertStage(pipeline, cmsAT_END, table) != 0)
            #expect(cmsPipelineInsertStage(pipeline, cmsAT_END, cmsStageAllocToneCurves(nil, 3, nil)) != 0)
        }
        #expect(cmsWriteTag(profile, tag, UnsafeRawPointer(pipeline)) != 0)
        var size: cmsUInt32Number = 0
        #expect(cmsSaveProfileToMem(profile, nil, &size) != 0)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        #expect(cmsSaveProfileToMem(profile, &bytes, &size) != 0)
        return bytes
    }

    /// 8-bit gray under a gray profile is a table of lcms's own 256 results: byte for byte what lcms gives.
    @Test(arguments: ["sgray.icc", "ps_gray.icc"])
    func grayIsLittleCMSsOwnTable(name: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/ghostscript/" + name)))
        let transform = try #require(
            try LCMSColorConverter().transformToSRGB(from: ColorDescription(iccProfile: bytes), samples: .rgba8))
        #expect(transform is GrayTableTransform)
        // Every gray value, with alpha running the other way.
        let grays = (0..<256).flatMap { value -> [UInt8] in
            [UInt8(value), UInt8(value), UInt8(value), UInt8(255 - value)]
        }
        var got = grays
        got.withUnsafeMutableBufferPointer { transform.apply($0.baseAddress!, count: 256) }
        #expect(got == (try Self.lcms(grays, profile: bytes, input: trove_lcms_gray_in_rgba8)))
        // Not the identity: these profiles' curves are not sRGB's.
        #expect(got != grays)
    }

    /// Profiles lcms does not treat as a matrix and curves alone go through lcms, and give exactly its result:
    /// one whose curves raise black (lcms maps it to sRGB's black) and one with a floating-point table (D2B0).
    @Test(arguments: ["lifted black", "D2B0"])
    func profilesLittleCMSTreatsOtherwiseGoThroughIt(kind: String) throws {
        let bytes =
            kind == "D2B0" ? try Self.matrixProfile(withTable: cmsSigDToB0Tag) : try Self.liftedBlackProfile()
        let transform = try #require(
            try LCMSColorConverter().transformToSRGB(from: ColorDescription(iccProfile: bytes), samples: .rgba8))
        #expect(!(transform is MatrixShaperTransform), "\(kind)")
        var got = Self.cube
        got.withUnsafeMutableBufferPointer { transform.apply($0.baseAddress!, count: $0.count / 4) }
        let expected = try Self.lcms(Self.cube, profile: bytes)
        // Counted, not compared whole: a failure's message then stays short.
        let differing = zip(got, expected).filter { $0 != $1 }.count
        #expect(differing == 0, "\(kind): \(differing) of \(got.count) samples differ from lcms")
        if kind == "lifted black" {
            // lcms's black point compensation: the source's black is sRGB's.
            #expect(Array(got[0..<3]) == [0, 0, 0])
        }
    }

    /// sRGB's primaries with a curve that starts at 5% (a measured display's raised black).
    static func liftedBlackProfile() throws -> [UInt8] {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: 0.64, y: 0.33, Y: 1), Green: cmsCIExyY(x: 0.30, y: 0.60, Y: 1),
            Blue: cmsCIExyY(x: 0.15, y: 0.06, Y: 1))
        let values = (0..<256).map { index -> UInt16 in
            UInt16((0.05 + 0.95 * pow(Double(index) / 255, 2.2)) * 65535)
        }
        let curve = try #require(
            values.withUnsafeBufferPointer { cmsBuildTabulatedToneCurve16(nil, 256, $0.baseAddress) })
        defer { cmsFreeToneCurve(curve) }
        return try ColorCases.rgbProfile(white: &white, primaries: &primaries, curve: curve)
    }
}
