import Testing
import TroveCore

/// `ProfileVerdicts` answers each profile once, tells profiles apart by every byte, and keeps at most its
/// capacity; `ColorDescription` hashes every part it compares.
@Suite struct ProfileVerdictsTests {
    /// Counts the answers asked for.
    final class Asked: @unchecked Sendable {
        var count = 0
    }

    @Test func aProfileIsAnsweredOnceAndACopyOfItsBytesFindsTheAnswer() {
        let verdicts = ProfileVerdicts(capacity: 4)
        let asked = Asked()
        let bytes = [UInt8](repeating: 7, count: 3144)
        let answer: ([UInt8]) -> Bool = { _ in
            asked.count += 1
            return true
        }
        #expect(verdicts.verdict(for: bytes, answer: answer))
        #expect(verdicts.verdict(for: Array(bytes), answer: answer))
        #expect(asked.count == 1)
    }

    @Test func profilesOneByteApartAreAnsweredApart() {
        let verdicts = ProfileVerdicts(capacity: 4)
        let first = [UInt8](repeating: 7, count: 600)
        var last = first
        last[599] = 8
        #expect(verdicts.verdict(for: first) { _ in true })
        #expect(!verdicts.verdict(for: last) { _ in false })
        #expect(verdicts.verdict(for: first) { _ in false })
        #expect(verdicts.count == 2)
    }

    @Test func aProfileOverTheLargestKeptIsAnsweredEachTime() {
        let verdicts = ProfileVerdicts(capacity: 4)
        let asked = Asked()
        let large = [UInt8](repeating: 1, count: ProfileVerdicts.largestKept + 1)
        for _ in 0..<2 {
            _ = verdicts.verdict(for: large) { _ in
                asked.count += 1
                return true
            }
        }
        #expect(asked.count == 2 && verdicts.count == 0)
    }

    @Test func itKeepsAtMostItsCapacity() {
        let verdicts = ProfileVerdicts(capacity: 3)
        for value in 0..<10 {
            _ = verdicts.verdict(for: [UInt8(value)]) { _ in true }
            #expect(verdicts.count <= 3)
        }
        let asked = Asked()
        // The newest is still kept after starting over.
        _ = verdicts.verdict(for: [9]) { _ in
            asked.count += 1
            return true
        }
        #expect(asked.count == 0)
    }

    /// Descriptions one part apart are unequal and hash apart (a part left out of `hash(into:)` would hash alike).
    @Test func aDescriptionHashesEachOfItsParts() {
        let base = ColorDescription(iccProfile: [1, 2, 3])
        var variants: [ColorDescription] = []
        var profile = base
        profile.iccProfile = [1, 2, 4]
        variants.append(profile)
        var noProfile = base
        noProfile.iccProfile = nil
        variants.append(noProfile)
        var cicp = base
        cicp.cicp = .init(primaries: 1, transfer: 13, matrix: 0, fullRange: true)
        variants.append(cicp)
        var sRGB = base
        sRGB.isSRGB = true
        variants.append(sRGB)
        var gamma = base
        gamma.gamma = 0.45455
        variants.append(gamma)
        var chromaticities = base
        chromaticities.chromaticities = .init(
            whiteX: 0.3127, whiteY: 0.329, redX: 0.64, redY: 0.33, greenX: 0.3, greenY: 0.6, blueX: 0.15, blueY: 0.06)
        variants.append(chromaticities)
        var cmyk = base
        cmyk.cmyk = .init(isInverted: true)
        variants.append(cmyk)
        for variant in variants {
            #expect(variant != base)
            #expect(variant.hashValue != base.hashValue)
        }
        #expect(ColorDescription(iccProfile: [1, 2, 3]).hashValue == base.hashValue)
    }
}
