import CLCMS2
import TroveCore

/// An RGB profile made of three tone curves and a matrix (a camera's Adobe RGB, a phone's Display P3, ProPhoto,
/// what PNG's gAMA and cHRM describe) to sRGB, over RGBA8 in place, for a profile whose black is at zero and
/// that has no lookup table. For those it does the arithmetic LittleCMS's own optimisation of such a pair does
/// (each input curve as a 256-entry table, one 3x3 matrix from the source's colorants to sRGB's, sRGB's inverse
/// curve as a table over 16,385 steps of 0...1, clipped there), taken from the profiles through lcms, in fixed
/// point, but without lcms's three calls a pixel: about a sixth of its time, within a level of lcms's result.
/// Alpha is left as it is, as lcms leaves the extra channel.
package final class MatrixShaperTransform: ColorTransform {
    /// For each channel's 256 values, that channel's column of the matrix times the value made linear, in
    /// sixteenths of an output step (fixed point, as lcms's own is): a pixel's linear sRGB is the sum of its
    /// three entries (lanes R, G, B and an unused fourth). Red's entries carry half a step more, so the sum
    /// shifted down is the nearest step.
    private let columns: [SIMD4<Int32>]
    /// sRGB's encoded 8-bit value for each of `outputSteps` + 1 even steps of linear light from 0 to 1.
    private let encode: [UInt8]
    private static let outputSteps = 16384
    /// The fraction bits of `columns`' fixed point.
    private static let fractionBits: Int32 = 4

    /// Nil unless LittleCMS would convert `profile` by its matrix and curves alone: an RGB profile with colorant
    /// and curve tags, no lookup table for the perceptual intent (`A2B0`, or the floating-point `D2B0`, which
    /// lcms would use instead), and curves that keep black at zero (lcms compensates a raised black point, as
    /// sRGB's v4 profile asks, with a scale and offset this does not make).
    init?(profile: cmsHPROFILE, sRGB: cmsHPROFILE) {
        let intent = cmsUInt32Number(INTENT_PERCEPTUAL)
        guard cmsGetColorSpace(profile) == cmsSigRgbData, cmsIsMatrixShaper(profile) != 0,
            cmsIsCLUT(profile, intent, cmsUInt32Number(LCMS_USED_AS_INPUT)) == 0,
            cmsIsTag(profile, cmsSigDToB0Tag) == 0,
            let source = Self.colorants(profile), let target = Self.colorants(sRGB),
            let toSRGB = Self.inverse(target), let outputCurve = Self.curve(sRGB, cmsSigRedTRCTag),
            let inverseCurve = cmsReverseToneCurve(outputCurve)
        else { return nil }
        defer { cmsFreeToneCurve(inverseCurve) }
        let matrix = Self.product(toSRGB, source)
        let unit = Double(Self.outputSteps << Int(Self.fractionBits))
        var columns = [SIMD4<Int32>](repeating: .zero, count: 3 * 256)
        for (channel, tag) in [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag].enumerated() {
            guard let curve = Self.curve(profile, tag), cmsEvalToneCurveFloat(curve, 0) == 0 else { return nil }
            for value in 0..<256 {
                let linear = Double(cmsEvalToneCurveFloat(curve, Float(value) / 255))
                var entry = SIMD4<Int32>.zero
                for lane in 0..<3 {
                    let scaled = (matrix[lane][channel] * linear * unit).rounded()
                    // A curve or matrix that gives no number, or an absurd one (past 64 times the range), leaves
                    // the profile to lcms: so three entries always add up without overflow.
                    guard scaled.isFinite, abs(scaled) < 64 * unit else { return nil }
                    entry[lane] = Int32(scaled) + (channel == 0 ? 1 << (Self.fractionBits - 1) : 0)
                }
                columns[channel * 256 + value] = entry
            }
        }
        self.columns = columns
        encode = (0...Self.outputSteps).map { step in
            let encoded = cmsEvalToneCurveFloat(inverseCurve, Float(step) / Float(Self.outputSteps))
            return UInt8((min(max(encoded, 0), 1) * 255).rounded())
        }
    }

    package func apply(_ pixels: UnsafeMutablePointer<UInt8>, count: Int) {
        columns.withUnsafeBufferPointer { columns in
            encode.withUnsafeBufferPointer { encode in
                guard let columns = columns.baseAddress, let encode = encode.baseAddress else { return }
                let green = columns + 256, blue = columns + 512
                let last = Int32(Self.outputSteps), shift = Self.fractionBits
                for index in 0..<count {
                    let pixel = pixels + 4 * index
                    let sum = columns[Int(pixel[0])] &+ green[Int(pixel[1])] &+ blue[Int(pixel[2])]
                    // Clipped to 0...1 as lcms clips it.
                    for lane in 0..<3 {
                        pixel[lane] = encode[Int(min(max(sum[lane] &>> shift, 0), last))]
                    }
                }
            }
        }
    }

    /// The profile's red, green and blue colorants (XYZ, relative to the PCS) as a matrix's columns.
    private static func colorants(_ profile: cmsHPROFILE) -> [[Double]]? {
        var columns: [cmsCIEXYZ] = []
        for tag in [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag] {
            guard let raw = cmsReadTag(profile, tag) else { return nil }
            columns.append(raw.assumingMemoryBound(to: cmsCIEXYZ.self).pointee)
        }
        let rows = [columns.map(\.X), columns.map(\.Y), columns.map(\.Z)]
        return rows.allSatisfy { $0.allSatisfy(\.isFinite) } ? rows : nil
    }

    private static func curve(_ profile: cmsHPROFILE, _ tag: cmsTagSignature) -> OpaquePointer? {
        cmsReadTag(profile, tag).map { OpaquePointer($0) }
    }

    private static func product(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
        (0..<3).map { row in (0..<3).map { column in (0..<3).reduce(0) { $0 + a[row][$1] * b[$1][column] } } }
    }

    /// The inverse of a 3x3 matrix, or nil when it has none (colorants that do not span a colour space).
    private static func inverse(_ m: [[Double]]) -> [[Double]]? {
        let cofactors = (0..<3).map { row in
            (0..<3).map { column -> Double in
                let r = [(row + 1) % 3, (row + 2) % 3], c = [(column + 1) % 3, (column + 2) % 3]
                return m[r[0]][c[0]] * m[r[1]][c[1]] - m[r[0]][c[1]] * m[r[1]][c[0]]
            }
        }
        let determinant = (0..<3).reduce(0) { $0 + m[0][$1] * cofactors[0][$1] }
        guard determinant.isFinite, abs(determinant) > 1e-9 else { return nil }
        // The inverse is the cofactors' transpose over the determinant.
        return (0..<3).map { row in (0..<3).map { column in cofactors[column][row] / determinant } }
    }
}
