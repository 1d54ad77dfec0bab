#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#elseif canImport(ucrt)
    import ucrt
#endif

/// sRGB's transfer function in both directions, computed as Wolt's C BlurHash computes it: single precision
/// values and `powf`, with the constants and comparisons in double precision where C's usual arithmetic
/// conversions put them. Matching those conversions one by one is what makes the hashes byte-exact.
enum BlurHashSRGB {
    /// The C literals, converted from their double values as C converts them when a `float` is expected.
    private static let decodeExponent = Float(2.4 as Double)
    private static let encodeExponent = Float(1.0 / 2.4)

    /// `toLinear` of every byte value.
    static let linearTable: [Float] = (0..<256).map { toLinear($0) }

    /// A channel value (0...255, larger only in a damaged hash) as linear light.
    static func toLinear(_ value: Int) -> Float {
        let v = Float(value) / 255
        if Double(v) <= 0.04045 { return Float(Double(v) / 12.92) }
        return powf(Float((Double(v) + 0.055) / 1.055), decodeExponent)
    }

    /// Linear light as a channel value 0...255: clamped, companded, and truncated after adding 0.5.
    static func fromLinear(_ value: Float) -> Int {
        // fminf and fmaxf, unlike Swift's min and max, drop a NaN argument in favour of the other one.
        let v = fmaxf(0, fminf(1, value))
        if Double(v) <= 0.0031308 { return Int(Double(v) * 12.92 * 255 + 0.5) }
        return Int((1.055 * Double(powf(v, encodeExponent)) - 0.055) * 255 + 0.5)
    }

    /// `copysignf(powf(fabsf(value), exponent), value)`: a power that keeps the sign.
    static func signPow(_ value: Float, _ exponent: Float) -> Float {
        copysignf(powf(fabsf(value), exponent), value)
    }
}
