import Testing

@testable import TroveTransformers

/// The resampler's trap-free rounding must give exactly what `UInt8(clamped + 0.5)` gives, ties included.
@Suite struct RoundedByteTests {
    static func expected(_ value: Float) -> UInt8 { UInt8(min(max(value, 0), 255) + 0.5) }

    @Test func everyQuarterStepFromBelowZeroToPast255RoundsHalfUp() {
        var value: Float = -3
        while value <= 260 {
            #expect(Resampler.roundedByte(value) == Self.expected(value), "\(value)")
            value += 0.25
        }
    }

    @Test func valuesNextToEachTieRoundTheWayTheFloorSays() {
        for integer in 0..<256 {
            let tie = Float(integer) + 0.5
            for value in [tie.nextDown, tie, tie.nextUp, Float(integer).nextDown, Float(integer).nextUp] {
                #expect(Resampler.roundedByte(value) == Self.expected(value), "\(value)")
            }
        }
        #expect(Resampler.roundedByte(-.infinity) == 0)
        #expect(Resampler.roundedByte(.infinity) == 255)
        #expect(Resampler.roundedByte(126.5) == 127 && Resampler.roundedByte(127.5) == 128)
    }

    @Test func sixteenAtOnceRoundEachAsOneAtATime() {
        var values: [Float] = [-.infinity, .infinity, -0.0, 0, 0.5, 254.5, 255.5, 256, -1000, 1000]
        for integer in -2..<258 {
            let tie = Float(integer) + 0.5
            values += [Float(integer), tie.nextDown, tie, tie.nextUp, Float(integer) + 0.25, Float(integer) + 0.75]
        }
        while values.count % 16 != 0 { values.append(127.5) }
        for start in stride(from: 0, to: values.count, by: 16) {
            let chunk = SIMD16<Float>(values[start..<(start + 16)])
            let rounded = Resampler.roundedBytes(chunk)
            for lane in 0..<16 {
                #expect(rounded[lane] == Resampler.roundedByte(chunk[lane]), "\(chunk[lane])")
            }
        }
    }
}
