/// Seeded damage for decoder robustness tests: the same seed gives the same flipped bytes on every run and
/// machine, so a crash it finds can be replayed. A 64-bit linear congruential generator (Knuth's MMIX
/// constants), taking its high bits.
public struct ByteDamager {
    private var state: UInt64

    /// A damager whose choices follow from `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// A number in `0..<bound` (`bound` > 0).
    public mutating func random(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int(state >> 33) % bound
    }

    /// `bytes` with 1 to `maxFlips` bytes in `range` (all of `bytes` by default) XORed with a non-zero value.
    public mutating func damaged(_ bytes: [UInt8], flips maxFlips: Int = 4, in range: Range<Int>? = nil) -> [UInt8] {
        var copy = bytes
        let range = range ?? 0..<bytes.count
        for _ in 0..<(1 + random(maxFlips)) { copy[range.lowerBound + random(range.count)] ^= UInt8(1 + random(255)) }
        return copy
    }
}
