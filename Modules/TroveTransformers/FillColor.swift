import TroveCore

/// A straight-alpha RGBA colour that fills the pixels an image does not cover (a canvas, a padding).
public struct FillColor: Sendable, Equatable, Hashable {
    /// Red, 0...255.
    package var red: UInt8
    /// Green, 0...255.
    package var green: UInt8
    /// Blue, 0...255.
    package var blue: UInt8
    /// Alpha, 0 (transparent) ... 255 (opaque).
    package var alpha: UInt8

    /// A colour from its four channels.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Fully transparent black: what a canvas holds where nothing is drawn.
    public static let transparent = FillColor(red: 0, green: 0, blue: 0, alpha: 0)

    /// Eight lowercase hex digits, `rrggbbaa`, for identifiers.
    package var hex: String {
        [red, green, blue, alpha].map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined()
    }

    /// The four bytes in RGBA order.
    var bytes: (UInt8, UInt8, UInt8, UInt8) { (red, green, blue, alpha) }
}
