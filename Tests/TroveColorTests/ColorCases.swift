import CLCMS2
import Foundation
import Testing
import Trove
import TroveAVIF
import TroveCodec
import TroveColor
import TroveHEIF
import TroveJPEG
import TroveTestSupport
import TroveWebP

/// The colour test images: made per run by scripts/pillow/make_color_cases.py from real profiles (Debian's
/// colord-data, Ghostscript's CMYK press profile from libgs-common, and a Display P3 profile built here with
/// LittleCMS), each with Pillow + ImageCms's conversion to sRGB as the reference.
enum ColorCases {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let colord = "/usr/share/color/icc/colord/"
    static let cmykProfilePath = "/usr/share/color/icc/ghostscript/default_cmyk.icc"

    /// One tagged file and Pillow's sRGB conversion of it.
    struct Case: Decodable {
        var file: String
        var reference: String
        /// "pro.jpg" for messages.
        var name: String { URL(fileURLWithPath: file).lastPathComponent }
    }

    /// Makes the cases in `directory`: ProPhoto, Adobe RGB and Display P3 in PNG, JPEG, WebP, AVIF and HEIC, and a
    /// CMYK JPEG embedding the press profile.
    static func make(in directory: URL) async throws -> [Case] {
        let p3 = directory.appendingPathComponent("DisplayP3.icc")
        try Data(try displayP3Profile()).write(to: p3)
        let output = try await pillow(
            "make_color_cases.py",
            [
                directory.path, "prophoto=\(colord)ProPhotoRGB.icc", "adobergb=\(colord)AdobeRGB1998.icc",
                "p3=\(p3.path)", "--cmyk", cmykProfilePath
            ])
        return try JSONDecoder().decode([Case].self, from: output)
    }

    /// Runs `scripts/pillow/SCRIPT` with `arguments` in the Pillow venv and returns its standard output.
    static func pillow(_ script: String, _ arguments: [String]) async throws -> Data {
        let result = try await runSubprocess(
            repositoryRoot.appendingPathComponent("scripts/pillow/python.sh"),
            [repositoryRoot.appendingPathComponent("scripts/pillow/\(script)").path] + arguments)
        guard result.status == 0 else { throw ScriptFailed(script: script, stderr: result.stderr) }
        return result.stdout
    }

    struct ScriptFailed: Error, CustomStringConvertible {
        var script: String
        var stderr: String
        var description: String { "\(script) failed: \(stderr)" }
    }

    /// A Display P3 ICC profile (P3 primaries, D65, the sRGB curve) as LittleCMS builds it.
    static func displayP3Profile() throws -> [UInt8] {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: 0.680, y: 0.320, Y: 1), Green: cmsCIExyY(x: 0.265, y: 0.690, Y: 1),
            Blue: cmsCIExyY(x: 0.150, y: 0.060, Y: 1))
        let parameters: [cmsFloat64Number] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        let curve = try #require(cmsBuildParametricToneCurve(nil, 4, parameters))
        defer { cmsFreeToneCurve(curve) }
        return try rgbProfile(white: &white, primaries: &primaries, curve: curve)
    }

    /// An RGB ICC profile with one tone curve for all three channels, as LittleCMS writes it.
    static func rgbProfile(
        white: inout cmsCIExyY, primaries: inout cmsCIExyYTRIPLE, curve: OpaquePointer
    ) throws -> [UInt8] {
        var curves: [OpaquePointer?] = [curve, curve, curve]
        let profile = try #require(cmsCreateRGBProfile(&white, &primaries, &curves))
        defer { cmsCloseProfile(profile) }
        var size: cmsUInt32Number = 0
        _ = cmsSaveProfileToMem(profile, nil, &size)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        _ = cmsSaveProfileToMem(profile, &bytes, &size)
        return bytes
    }

    /// A PNG file, decoded by Trove's PNG decoder (no colour conversion: it only reports).
    static func png(_ path: String) throws -> Image {
        try PNGDecoder().decode(try Data(contentsOf: URL(fileURLWithPath: path)), limits: .default)
    }

    /// The registry the tests decode with: the standard set plus the codec plugins.
    static func registry(color: Bool) throws -> PluginRegistry {
        var registry = PluginRegistry.standard
        try registry.install(TroveJPEGPlugin())
        try registry.install(TroveWebPPlugin())
        try registry.install(TroveAVIFPlugin())
        try registry.install(TroveHEIFPlugin())
        if color { try registry.install(TroveColorPlugin()) }
        return registry
    }
}
