import Foundation
import Testing
import TroveCore

/// `SRGBProfile` against real profiles from Debian's colord-data and Ghostscript (installed by
/// scripts/setup.sh): sRGB as a v2 table profile and as a v4 parametric one is recognised; profiles with other
/// primaries, another curve or tables are not; damaged bytes are not, and never trap.
@Suite struct SRGBProfileTests {
    static func profile(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static let sRGBv2 = "/usr/share/color/icc/ghostscript/srgb.icc"
    static let sRGBv4 = "/usr/share/color/icc/colord/sRGB.icc"

    /// colord's Gamma5000K and Gamma6500K are sRGB's colorants and curve with a video card table (`vcgt`) for a
    /// display's white point, which conversions do not use.
    @Test(arguments: [
        sRGBv2, sRGBv4, "/usr/share/color/icc/ghostscript/default_rgb.icc",
        "/usr/share/color/icc/colord/Gamma5000K.icc", "/usr/share/color/icc/colord/Gamma6500K.icc"
    ])
    func sRGBProfilesAreRecognised(_ path: String) throws {
        #expect(SRGBProfile.describes(try Self.profile(path)))
        #expect(ColorDescription(iccProfile: try Self.profile(path)).isOnlyAnSRGBProfile)
    }

    @Test(arguments: [
        // sRGB's primaries with BT.709's curve: 0.047 away from sRGB's in the shadows.
        "/usr/share/color/icc/colord/Rec709.icc",
        "/usr/share/color/icc/colord/AdobeRGB1998.icc", "/usr/share/color/icc/colord/ProPhotoRGB.icc",
        "/usr/share/color/icc/colord/SwappedRedAndGreen.icc",
        "/usr/share/color/icc/ghostscript/default_cmyk.icc", "/usr/share/color/icc/ghostscript/sgray.icc"
    ])
    func otherProfilesAreNot(_ path: String) throws {
        #expect(!SRGBProfile.describes(try Self.profile(path)))
    }

    /// A profile that says more than its profile (a CICP, a gamma) is not only an sRGB profile.
    @Test func aDescriptionWithMoreThanTheProfileIsNotOnlySRGB() throws {
        let bytes = try Self.profile(Self.sRGBv4)
        #expect(!ColorDescription(iccProfile: bytes, gamma: 0.45455).isOnlyAnSRGBProfile)
        #expect(
            !ColorDescription(iccProfile: bytes, cicp: .init(primaries: 1, transfer: 13, matrix: 0, fullRange: true))
                .isOnlyAnSRGBProfile)
        #expect(!ColorDescription(isSRGB: true).isOnlyAnSRGBProfile)
    }

    /// A lookup table (lcms would convert through it, not the colorants and curves) makes it not sRGB here.
    @Test func aProfileWithATableIsNot() throws {
        var bytes = try Self.profile(Self.sRGBv4)
        let tags = ICCTagTable(bytes)
        let chrm = try #require(tags["chrm"])
        // Rename the chromaticity tag's entry in the table to A2B0.
        func offset(ofEntry entry: Int) -> Int {
            bytes[entry + 4..<entry + 8].reduce(0) { $0 << 8 | Int($1) }
        }
        let entries = stride(from: 132, to: 132 + 12 * tags.count, by: 12)
        let entry = try #require(entries.first { offset(ofEntry: $0) == chrm.lowerBound })
        bytes.replaceSubrange(entry..<entry + 4, with: Array("A2B0".utf8))
        #expect(!SRGBProfile.describes(bytes))
    }

    /// Every truncation and a byte changed at every 7th offset are answered without trapping; a truncation
    /// that cuts a colorant or a curve, and a changed curve or colorant, are not sRGB.
    @Test func damagedBytesAreAnsweredWithoutTrapping() throws {
        for path in [Self.sRGBv2, Self.sRGBv4] {
            let bytes = try Self.profile(path)
            let tags = ICCTagTable(bytes)
            let needed = try ["rXYZ", "gXYZ", "bXYZ", "rTRC", "gTRC", "bTRC"].map { try #require(tags[$0]) }
            let lastNeeded = needed.map { $0.upperBound }.max() ?? 0
            for length in 0..<bytes.count where length < lastNeeded {
                #expect(!SRGBProfile.describes(Array(bytes.prefix(length))), "\(path) cut to \(length)")
            }
            for offset in stride(from: 0, to: bytes.count, by: 7) {
                var damaged = bytes
                damaged[offset] ^= 0xA5
                _ = SRGBProfile.describes(damaged)
            }
            for (tag, at) in [("gTRC", 14), ("rXYZ", 10), ("bXYZ", 18)] {
                var damaged = bytes
                damaged[try #require(tags[tag]).lowerBound + at] ^= 0x40
                #expect(!SRGBProfile.describes(damaged), "\(path): \(tag) changed at \(at)")
            }
        }
    }
}
