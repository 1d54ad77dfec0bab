import CLCMS2
import Foundation
import TroveCore

/// The `lcms` colour converter: LittleCMS 2 transforms to sRGB (perceptual intent, as Pillow's ImageCms uses by
/// default), kept in a bounded cache by profile. What it converts from, in order: an embedded ICC profile; PNG's
/// `sRGB` chunk (nothing to do); CICP code points for BT.709/sRGB, Display P3 and BT.2020 primaries with an
/// SDR transfer (a profile built with lcms); PNG's gAMA and cHRM. CMYK samples go through their embedded
/// profile, or the first of `defaultCMYKProfilePaths` that exists. RGBA8 pixels under an RGB profile of curves
/// and a matrix alone (black at zero, no lookup table) are converted by `MatrixShaperTransform`, lcms's
/// arithmetic without its calls a pixel; 8-bit gray by `GrayTableTransform`, lcms's result for each of its 256
/// values; everything else, 16-bit samples included, by lcms.
package struct LCMSColorConverter: ColorConverter {
    /// The registry name, "lcms".
    package let name = "lcms"
    /// Where a CMYK profile is looked for, in order, when a CMYK JPEG carries none: Ghostscript's default CMYK
    /// press profile, which Debian's libgs-common installs. LittleCMS has no CMYK profile of its own.
    package static let defaultCMYKProfilePaths = [
        "/usr/share/color/icc/ghostscript/default_cmyk.icc",
        "/usr/share/ghostscript/iccprofiles/default_cmyk.icc"
    ]
    private let cache: TransformCache

    /// A converter keeping up to `cacheCapacity` transforms.
    package init(cacheCapacity: Int = 32) {
        cache = TransformCache(capacity: cacheCapacity)
    }

    /// How many transforms the cache holds now (for tests and diagnostics).
    package var cachedTransformCount: Int { cache.count }

    /// The transform to sRGB, from the cache or built now; nil when the description already means sRGB.
    /// Throws `ColorConversionError` for a damaged profile, one of another colour space, an
    /// unsupported CICP transfer (PQ, HLG), or CMYK without any profile to go through.
    package func transformToSRGB(
        from description: ColorDescription, samples: ColorSamples
    ) throws -> (any ColorTransform)? {
        guard let source = try SourceProfile.plan(for: description, samples: samples) else { return nil }
        let key = TransformCache.Key(description: description, samples: samples)
        return try cache.transform(for: key) { try Self.makeTransform(source, samples: samples) }
    }

    private static func makeTransform(_ source: SourceProfile, samples: ColorSamples) throws -> any ColorTransform {
        let profile = try source.open()
        defer { cmsCloseProfile(profile) }
        guard let sRGB = cmsCreate_sRGBProfile() else { throw failure("LittleCMS could not make its sRGB profile") }
        defer { cmsCloseProfile(sRGB) }
        let inputFormat: cmsUInt32Number
        switch (samples, cmsGetColorSpace(profile)) {
        case (.rgba8, cmsSigRgbData):
            inputFormat = trove_lcms_rgba8
        case (.rgba8, cmsSigGrayData):
            inputFormat = trove_lcms_gray_in_rgba8
        case (.rgba16BigEndian, cmsSigRgbData):
            inputFormat = trove_lcms_rgba16_be
        case (.rgba16BigEndian, cmsSigGrayData):
            inputFormat = trove_lcms_gray_in_rgba16_be
        case (.cmyk8, cmsSigCmykData):
            inputFormat = source.cmykInverted ? trove_lcms_cmyk8_inverted : trove_lcms_cmyk8
        case (_, let space):
            throw failure(
                "the ICC profile is for \(signatureName(space.rawValue)) colours but the pixels are "
                    + (samples == .cmyk8 ? "CMYK" : "RGB"))
        }
        let deviceClass = cmsGetDeviceClass(profile)
        guard deviceClass != cmsSigLinkClass, deviceClass != cmsSigAbstractClass,
            deviceClass != cmsSigNamedColorClass
        else {
            throw failure("the ICC profile is a \(signatureName(deviceClass.rawValue)) profile, not one for images")
        }
        guard
            let handle = cmsCreateTransform(
                profile, inputFormat, sRGB, trove_lcms_rgba8, cmsUInt32Number(INTENT_PERCEPTUAL),
                cmsUInt32Number(cmsFLAGS_NOCACHE))
        else { throw failure("LittleCMS could not build a transform from the ICC profile (it is damaged)") }
        // lcms built it, so the profile reads; a matrix and curves are then applied without lcms's calls a pixel.
        if samples == .rgba8, let matrixShaper = MatrixShaperTransform(profile: profile, sRGB: sRGB) {
            cmsDeleteTransform(handle)
            return matrixShaper
        }
        // 8-bit gray has 256 values: lcms's result for each, kept, is the whole transform.
        if samples == .rgba8, cmsGetColorSpace(profile) == cmsSigGrayData {
            defer { cmsDeleteTransform(handle) }
            return GrayTableTransform(lcms: handle)
        }
        guard samples == .rgba16BigEndian, cmsGetColorSpace(profile) == cmsSigGrayData else {
            return LCMSTransform(handle: handle, samples: samples)
        }
        guard let grayWide = GrayWideLookup(profile: profile, sRGB: sRGB) else {
            cmsDeleteTransform(handle)
            throw failure("LittleCMS could not build a transform from the ICC profile (it is damaged)")
        }
        return LCMSTransform(handle: handle, samples: samples, grayWide: grayWide)
    }

    static func failure(_ reason: String) -> ColorConversionError {
        ColorConversionError(reason: reason)
    }

    /// A four-letter ICC signature as text ("RGB ", "CMYK").
    private static func signatureName(_ value: UInt32) -> String {
        let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        return bytes.allSatisfy({ (0x20...0x7E).contains($0) })
            ? "'\(text)'" : "unknown (0x\(String(value, radix: 16)))"
    }
}
