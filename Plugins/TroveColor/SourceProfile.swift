import CLCMS2
import Foundation
import TroveCore

/// The profile a description calls for, before LittleCMS opens it: embedded ICC bytes, or an RGB profile to
/// build from primaries and a transfer curve (CICP, PNG gAMA/cHRM).
struct SourceProfile {
    enum Source {
        case icc([UInt8])
        case rgb(white: (x: Double, y: Double), primaries: [(x: Double, y: Double)], curve: Curve)
    }

    /// A transfer curve from encoded values to linear light.
    enum Curve {
        /// sRGB's piecewise curve (IEC 61966-2-1).
        case sRGB
        /// A pure power: linear = encoded ^ exponent.
        case power(Double)
    }

    var source: Source
    /// CMYK samples are stored inverted (Adobe).
    var cmykInverted = false

    static let d65 = (x: 0.3127, y: 0.3290)
    static let bt709 = [(x: 0.640, y: 0.330), (x: 0.300, y: 0.600), (x: 0.150, y: 0.060)]
    static let displayP3 = [(x: 0.680, y: 0.320), (x: 0.265, y: 0.690), (x: 0.150, y: 0.060)]
    static let bt2020 = [(x: 0.708, y: 0.292), (x: 0.170, y: 0.797), (x: 0.131, y: 0.046)]

    /// What to convert from; nil when the description means sRGB (or says nothing usable for RGB).
    static func plan(for description: ColorDescription, samples: ColorSamples) throws -> SourceProfile? {
        if samples == .cmyk8 {
            let inverted = description.cmyk?.isInverted ?? false
            if let icc = description.iccProfile { return SourceProfile(source: .icc(icc), cmykInverted: inverted) }
            guard let bytes = defaultCMYKProfile() else {
                throw LCMSColorConverter.failure(
                    "the CMYK image has no ICC profile and no default CMYK profile is installed (looked for "
                        + LCMSColorConverter.defaultCMYKProfilePaths.joined(separator: ", ")
                        + "; install Debian's libgs-common)")
            }
            return SourceProfile(source: .icc(bytes), cmykInverted: inverted)
        }
        // sRGB's own profile (most cameras'): a conversion would change nothing but rounding, and costs about
        // 14 ns a pixel.
        if let icc = description.iccProfile {
            return SRGBProfile.describes(icc) ? nil : SourceProfile(source: .icc(icc))
        }
        if description.isSRGB { return nil }
        if let cicp = description.cicp { return try plan(for: cicp) }
        return plan(gamma: description.gamma, chromaticities: description.chromaticities)
    }

    /// CICP (ITU-T H.273): BT.709/sRGB, Display P3 (P3-D65) and BT.2020 primaries; the sRGB curve, BT.709's
    /// family of SDR curves (shown with the sRGB curve, as displays show them), linear, and gamma 2.2 and 2.8.
    private static func plan(for cicp: ColorDescription.CICP) throws -> SourceProfile? {
        let curve: Curve
        switch cicp.transfer {
        case 1, 2, 6, 13, 14, 15: curve = .sRGB
        case 4: curve = .power(2.2)
        case 5: curve = .power(2.8)
        case 8: curve = .power(1)
        default:
            throw LCMSColorConverter.failure(
                "CICP transfer characteristics \(cicp.transfer) (HDR or unusual) are not supported")
        }
        let primaries: [(x: Double, y: Double)]
        switch cicp.primaries {
        case 1, 2:
            if case .sRGB = curve { return nil }
            primaries = bt709
        case 12: primaries = displayP3
        case 9: primaries = bt2020
        default:
            throw LCMSColorConverter.failure("CICP colour primaries \(cicp.primaries) are not supported")
        }
        return SourceProfile(source: .rgb(white: d65, primaries: primaries, curve: curve))
    }

    /// PNG's gAMA (the file gamma, 1/2.2 for ordinary images) and cHRM. Files that state sRGB's own values
    /// (gamma 0.45455 and sRGB's primaries, or either alone) are left as they are, as browsers show them.
    private static func plan(
        gamma: Double?, chromaticities: ColorDescription.Chromaticities?
    ) -> SourceProfile? {
        let sRGBGamma = 1 / 2.2
        let usableGamma = gamma.flatMap { $0 > 0.01 && $0 < 10 ? $0 : nil }
        let gammaIsSRGB = usableGamma.map { abs($0 - sRGBGamma) < 0.005 } ?? true
        var white = d65, primaries = bt709
        if let c = chromaticities, [c.whiteY, c.redY, c.greenY, c.blueY].allSatisfy({ $0 > 0 }) {
            white = (c.whiteX, c.whiteY)
            primaries = [(c.redX, c.redY), (c.greenX, c.greenY), (c.blueX, c.blueY)]
        }
        let primariesAreSRGB =
            abs(white.x - d65.x) < 0.002 && abs(white.y - d65.y) < 0.002
            && zip(primaries, bt709).allSatisfy { abs($0.x - $1.x) < 0.002 && abs($0.y - $1.y) < 0.002 }
        if gammaIsSRGB && primariesAreSRGB { return nil }
        let curve: Curve = usableGamma.map { .power(1 / $0) } ?? .sRGB
        return SourceProfile(source: .rgb(white: white, primaries: primaries, curve: curve))
    }

    private static func defaultCMYKProfile() -> [UInt8]? {
        for path in LCMSColorConverter.defaultCMYKProfilePaths {
            if let data = FileManager.default.contents(atPath: path) { return [UInt8](data) }
        }
        return nil
    }

    /// Opens the profile in LittleCMS; the caller closes it.
    func open() throws -> cmsHPROFILE {
        switch source {
        case let .icc(bytes):
            guard bytes.count >= 128, bytes.count <= Int(UInt32.max),
                let profile = bytes.withUnsafeBytes({
                    cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count))
                })
            else {
                throw LCMSColorConverter.failure(
                    "the embedded ICC profile (\(bytes.count) bytes) is damaged: LittleCMS cannot read it")
            }
            return profile
        case let .rgb(white, primaries, curve):
            return try Self.buildRGB(white: white, primaries: primaries, curve: curve)
        }
    }

    private static func buildRGB(
        white: (x: Double, y: Double), primaries: [(x: Double, y: Double)], curve: Curve
    ) throws -> cmsHPROFILE {
        var whitePoint = cmsCIExyY(x: white.x, y: white.y, Y: 1)
        var triple = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: primaries[0].x, y: primaries[0].y, Y: 1),
            Green: cmsCIExyY(x: primaries[1].x, y: primaries[1].y, Y: 1),
            Blue: cmsCIExyY(x: primaries[2].x, y: primaries[2].y, Y: 1))
        let tone: OpaquePointer?
        switch curve {
        case .sRGB:
            // IEC 61966-2-1 as lcms's parametric type 4: Y = (aX + b)^g above d, cX below.
            let parameters: [cmsFloat64Number] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
            tone = cmsBuildParametricToneCurve(nil, 4, parameters)
        case let .power(exponent):
            tone = cmsBuildGamma(nil, exponent)
        }
        guard let tone else { throw LCMSColorConverter.failure("LittleCMS could not build a tone curve") }
        defer { cmsFreeToneCurve(tone) }
        var curves: [OpaquePointer?] = [tone, tone, tone]
        guard let profile = cmsCreateRGBProfile(&whitePoint, &triple, &curves) else {
            throw LCMSColorConverter.failure("LittleCMS could not build an RGB profile from those primaries")
        }
        return profile
    }
}
