import Foundation

/// Whether embedded ICC bytes describe sRGB itself: an RGB matrix-and-curves profile whose colorants are sRGB's
/// (adapted to D50, as every display profile stores them, within 0.0005) and whose three curves are sRGB's
/// within 0.1% of full scale at every table entry (or 1024 points of a parametric curve). Most camera and phone
/// JPEGs embed one (HP's "sRGB IEC61966-2.1", colord's and Ghostscript's sRGB); converting from it to sRGB
/// changes no pixel by more than rounding, so such a source may skip the conversion. Anything else (a
/// LUT-based profile, other primaries, a gamma-2.2 or BT.709 curve, damaged bytes) is not sRGB here: the answer
/// errs towards converting.
package enum SRGBProfile {
    /// sRGB's red, green and blue colorants in the D50 PCS (IEC 61966-2-1 adapted by Bradford), as profiles
    /// store them to four decimals.
    static let colorants: [(tag: String, xyz: (Double, Double, Double))] = [
        ("rXYZ", (0.4361, 0.2225, 0.0139)), ("gXYZ", (0.3851, 0.7169, 0.0971)), ("bXYZ", (0.1431, 0.0606, 0.7141))
    ]
    /// How far a stored colorant may be from sRGB's: sRGB profiles round them differently (colord's red X is
    /// 0.00025 off), and a red X 0.003 off already moves saturated colours by 7 levels. Adobe RGB's red is 0.17
    /// away; BT.709's colorants are sRGB's.
    static let colorantTolerance = 0.0005
    /// How far, in linear light from 0 to 1, a curve may be from sRGB's at any of the points checked: the
    /// 1024-entry tables of sRGB profiles are within 0.00001, gamma 2.2 is 0.0085 away and BT.709's curve 0.047.
    static let curveTolerance = 0.001
    /// Tags that make a profile more than a matrix and curves (lcms would use their tables instead).
    static let tableTags = ["A2B0", "A2B1", "A2B2", "B2A0", "D2B0", "D2B1", "D2B2"]

    /// True when `bytes` is an ICC profile of sRGB (see the type). A request asks this of its source's profile
    /// twice, and a site's photos carry the same few profiles, so recent answers are kept (`ProfileVerdicts`):
    /// checking a profile's three curves at 1,024 points each costs tens of microseconds.
    package static func describes(_ bytes: [UInt8]) -> Bool {
        verdicts.verdict(for: bytes) { check($0) }
    }

    private static let verdicts = ProfileVerdicts(capacity: 16)

    /// `describes` without the kept answers.
    static func check(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 132, tag(bytes, at: 36) == "acsp", tag(bytes, at: 16) == "RGB ",
            tag(bytes, at: 20) == "XYZ "
        else { return false }
        let tags = ICCTagTable(bytes)
        guard tableTags.allSatisfy({ tags[$0] == nil }) else { return false }
        for (name, expected) in colorants {
            guard let range = tags[name], let xyz = xyzValue(bytes, range),
                abs(xyz.0 - expected.0) <= colorantTolerance, abs(xyz.1 - expected.1) <= colorantTolerance,
                abs(xyz.2 - expected.2) <= colorantTolerance
            else { return false }
        }
        return ["rTRC", "gTRC", "bTRC"].allSatisfy { name in
            guard let range = tags[name], let (curve, points) = curve(bytes, range) else { return false }
            return (0..<points).allSatisfy { step in
                let x = Double(step) / Double(points - 1)
                let difference = abs(curve(x) - sRGBToLinear(x))
                return difference <= curveTolerance
            }
        }
    }

    /// sRGB's curve from encoded values to linear light.
    static func sRGBToLinear(_ x: Double) -> Double {
        x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4)
    }

    /// An `XYZ ` tag's first value.
    static func xyzValue(_ bytes: [UInt8], _ range: Range<Int>) -> (Double, Double, Double)? {
        guard range.count >= 20, tag(bytes, at: range.lowerBound) == "XYZ " else { return nil }
        let values = (0..<3).compactMap { s15Fixed16(bytes, at: range.lowerBound + 8 + 4 * $0) }
        return values.count == 3 ? (values[0], values[1], values[2]) : nil
    }

    /// A `curv` (identity, gamma or table) or `para` (ICC function types 0 to 4) tag as a function from
    /// encoded values to linear light, both 0...1, and how many evenly spaced points to check it at: a table's
    /// every entry, else 1024.
    static func curve(_ bytes: [UInt8], _ range: Range<Int>) -> (function: (Double) -> Double, points: Int)? {
        guard range.count >= 12 else { return nil }
        let start = range.lowerBound
        switch tag(bytes, at: start) {
        case "curv":
            guard let count = uint32(bytes, at: start + 8).map(Int.init), count <= (range.count - 12) / 2 else {
                return nil
            }
            if count == 0 { return ({ $0 }, 1024) }
            let entries = (0..<count).map { Double(uint16(bytes, at: start + 12 + 2 * $0)) }
            if count == 1 {
                let gamma = entries[0] / 256
                return ({ pow($0, gamma) }, 1024)
            }
            let table = entries.map { $0 / 65535 }
            let interpolated: (Double) -> Double = { x in
                let position = x * Double(table.count - 1)
                let below = min(Int(position), table.count - 2)
                let fraction = position - Double(below)
                return table[below] + (table[below + 1] - table[below]) * fraction
            }
            return (interpolated, table.count)
        case "para":
            let function = Int(uint16(bytes, at: start + 8))
            let needed = [1, 3, 4, 5, 7]
            guard function < needed.count, range.count >= 12 + 4 * needed[function] else { return nil }
            let p = (0..<needed[function]).compactMap { s15Fixed16(bytes, at: start + 12 + 4 * $0) }
            guard p.count == needed[function] else { return nil }
            // Below the break the curve is linear (types 3, 4) or flat (types 1, 2).
            let power: (Double) -> Double = { base in base > 0 ? pow(base, p[0]) : 0 }
            let curve: (Double) -> Double =
                switch function {
                case 0: { power($0) }
                case 1: { x in x >= -p[2] / p[1] ? power(p[1] * x + p[2]) : 0 }
                case 2: { x in x >= -p[2] / p[1] ? power(p[1] * x + p[2]) + p[3] : p[3] }
                case 3: { x in x >= p[4] ? power(p[1] * x + p[2]) : p[3] * x }
                default: { x in x >= p[4] ? power(p[1] * x + p[2]) + p[5] : p[3] * x + p[6] }
                }
            return (curve, 1024)
        default:
            return nil
        }
    }

    private static func tag(_ bytes: [UInt8], at offset: Int) -> String {
        guard offset >= 0, offset + 4 <= bytes.count else { return "" }
        return String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }

    private static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func uint16(_ bytes: [UInt8], at offset: Int) -> UInt16 {
        guard offset >= 0, offset + 2 <= bytes.count else { return 0 }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    private static func s15Fixed16(_ bytes: [UInt8], at offset: Int) -> Double? {
        uint32(bytes, at: offset).map { Double(Int32(bitPattern: $0)) / 65536 }
    }
}
