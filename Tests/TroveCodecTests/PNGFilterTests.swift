import Testing
import TroveTestSupport

@testable import TroveCodec

/// PNG's filters reversed: the branch-free Paeth (`PNGFilter.unfilterPaeth`) gives, byte for byte, what the
/// spec's rule gives, for every pixel size and on rows that end mid-pixel.
@Suite struct PNGFilterTests {
    /// The spec's rule, one byte at a time, as the reference.
    static func referencePaeth(_ row: [UInt8], up: [UInt8], distance: Int) -> [UInt8] {
        var out = row
        for i in 0..<out.count {
            let left = i >= distance ? out[i - distance] : 0
            let upLeft = i >= distance ? up[i - distance] : 0
            out[i] &+= PNGFilter.paeth(left, up[i], upLeft)
        }
        return out
    }

    static func unfiltered(_ type: UInt8, _ row: [UInt8], up: [UInt8]?, distance: Int) -> [UInt8] {
        var out = row
        let known = out.withUnsafeMutableBufferPointer { row in
            guard let up else {
                return PNGFilter.unfilter(
                    type, row: row.baseAddress!, previous: nil, count: row.count, distance: distance)
            }
            return up.withUnsafeBufferPointer { up in
                PNGFilter.unfilter(
                    type, row: row.baseAddress!, previous: up.baseAddress, count: row.count, distance: distance)
            }
        }
        #expect(known)
        return out
    }

    /// Random bytes reach every branch of the choice (left, up, up-left and each tie); smooth rows are what
    /// photos give. Widths of whole pixels and of a pixel and a bit.
    @Test(arguments: 1...8)
    func paethMatchesTheByteAtATimeRule(distance: Int) {
        var random = SplitMix64(seed: UInt64(distance))
        for count in [distance, distance * 2, distance * 37, distance * 37 + 1, distance * 64 + distance - 1] {
            let noise = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            let up = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(
                Self.unfiltered(4, noise, up: up, distance: distance)
                    == Self.referencePaeth(noise, up: up, distance: distance))
            // Small differences, as a filtered photo row holds: the choice falls near its ties.
            let small = (0..<count).map { _ in UInt8(truncatingIfNeeded: Int.random(in: -3...3, using: &random)) }
            let smooth = (0..<count).map { UInt8(truncatingIfNeeded: 100 + $0 / max(1, distance)) }
            #expect(
                Self.unfiltered(4, small, up: smooth, distance: distance)
                    == Self.referencePaeth(small, up: smooth, distance: distance))
            // Three values only: the three distances tie often, and ties must go left, then up.
            let few = (0..<count).map { _ in UInt8.random(in: 0...2, using: &random) }
            let fewAbove = (0..<count).map { _ in UInt8.random(in: 0...2, using: &random) }
            #expect(
                Self.unfiltered(4, few, up: fewAbove, distance: distance)
                    == Self.referencePaeth(few, up: fewAbove, distance: distance))
        }
    }

    /// The branch-free prediction the filters use is the spec's rule for every left, up and up-left byte.
    @Test func paethPredictionIsTheSpecsRuleForEveryInput() {
        var mismatches = 0
        for left in 0...255 {
            for up in 0...255 {
                for upLeft in 0...255 {
                    let a = UInt8(left), b = UInt8(up), c = UInt8(upLeft)
                    if PNGFilter.paethPrediction(a, b, c) != PNGFilter.paeth(a, b, c) { mismatches += 1 }
                }
            }
        }
        #expect(mismatches == 0)
    }

    /// Filtering a row with Paeth and reversing it gives the row back, for RGB and RGBA pixels.
    @Test(arguments: [3, 4])
    func paethRoundTrips(distance: Int) {
        var random = SplitMix64(seed: 42)
        let count = distance * 301
        let row = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
        let up = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
        var filtered = [UInt8](repeating: 0, count: count)
        row.withUnsafeBufferPointer { row in
            up.withUnsafeBufferPointer { up in
                filtered.withUnsafeMutableBufferPointer { output in
                    _ = PNGFilter.filter(
                        4, row: row.baseAddress!, previous: up.baseAddress, count: count, distance: distance,
                        into: output.baseAddress!)
                }
            }
        }
        #expect(Self.unfiltered(4, filtered, up: up, distance: distance) == row)
    }
}
