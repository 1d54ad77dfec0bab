/// BlurHash's base-83 digits: fixed-width big-endian numbers over an alphabet of URL- and JSON-friendly
/// ASCII characters.
enum Base83 {
    static let alphabet = Array(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~".utf8)

    /// Each byte's digit value, 0xFF for bytes outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    /// Appends `value` as `length` digits; `value` must be below 83^length.
    static func append(_ value: Int, length: Int, to out: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<max(1, length) { divisor *= 83 }
        for _ in 0..<length {
            out.append(alphabet[value / divisor % 83])
            divisor /= 83
        }
    }

    /// The number in `digits[range]`; `PlaceholderError.invalidBlurHashCharacter` at the first byte that is no
    /// digit. `range` must lie within `digits`.
    static func decode(_ digits: [UInt8], _ range: Range<Int>) throws -> Int {
        var value = 0
        for offset in range {
            let digit = values[Int(digits[offset])]
            guard digit != 0xFF else {
                throw PlaceholderError.invalidBlurHashCharacter(describe(digits[offset]), offset: offset)
            }
            value = value * 83 + Int(digit)
        }
        return value
    }

    /// A byte for an error message: the character quoted when it is printable ASCII, its hex value otherwise.
    private static func describe(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return "\"\(Character(Unicode.Scalar(byte)))\"" }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x" + (hex.count < 2 ? "0" + hex : hex)
    }
}
