import TroveCore

/// Lays a colour over the image's visible pixels: each colour moves towards the tint by the tint's
/// alpha (`#ff000080` mixes in half red, `#ff0000` paints opaque red), and alpha is kept, so the
/// image's shape stays and transparent areas stay transparent.
public struct TintTransformer: ImageTransformer, Equatable {
    /// Red of the tint colour, 0...255.
    package let red: UInt8
    /// Green of the tint colour, 0...255.
    package let green: UInt8
    /// Blue of the tint colour, 0...255.
    package let blue: UInt8
    /// The tint's strength, 0 (no change) ... 255 (colour replaced); not the image's alpha.
    package let alpha: UInt8

    /// A tint of this colour at strength `alpha` (default 255: the visible pixels take the tint colour).
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Reads `#rrggbb` or `#rrggbbaa` (hex digits of either case; the `#` is optional); nil otherwise.
    public init?(hex text: String) {
        let digits = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        guard digits.count == 6 || digits.count == 8, digits.allSatisfy(\.isHexDigit),
            let value = UInt32(digits, radix: 16)
        else { return nil }
        let rgba = digits.count == 6 ? value << 8 | 0xFF : value
        self.init(
            red: UInt8(truncatingIfNeeded: rgba >> 24), green: UInt8(truncatingIfNeeded: rgba >> 16),
            blue: UInt8(truncatingIfNeeded: rgba >> 8), alpha: UInt8(truncatingIfNeeded: rgba))
    }

    /// Always eight lowercase hex digits, so `#FF0000` and `#ff0000ff` share a cache key.
    public var identifier: String {
        let hex = [red, green, blue, alpha].map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined()
        return "tint(color=#\(hex))"
    }

    /// The tinted image and frames (RGBA8); with `alpha` 0 the image is returned as is.
    public func transform(_ image: Image) throws -> Image {
        guard alpha > 0 else { return image }
        let strength = UInt32(alpha), keep = 255 - UInt32(alpha)
        let tint = (UInt32(red) * strength, UInt32(green) * strength, UInt32(blue) * strength)
        // (c * keep + tint * strength) / 255, rounded: exact at both ends (alpha 0 and 255).
        @inline(__always) func mix(_ c: UInt8, _ tinted: UInt32) -> UInt8 {
            let sum = UInt32(c) * keep + tinted + 127
            return UInt8(truncatingIfNeeded: sum / 255)
        }
        return try image.mappingEveryFrame { src, dst in
            for i in stride(from: 0, to: src.count, by: 4) {
                dst[i] = mix(src[i], tint.0)
                dst[i + 1] = mix(src[i + 1], tint.1)
                dst[i + 2] = mix(src[i + 2], tint.2)
                dst[i + 3] = src[i + 3]
            }
        }
    }
}
