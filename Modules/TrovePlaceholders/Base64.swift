/// Standard base64 (RFC 4648 §4), the text form ThumbHashes are printed in by the reference implementations:
/// written with `=` padding, read with or without it. Kept here so the module needs no Foundation.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Each ASCII byte's 6-bit value, 0xFF for bytes outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(group >> 18 & 63)])
            out.append(alphabet[Int(group >> 12 & 63)])
            out.append(remaining > 1 ? alphabet[Int(group >> 6 & 63)] : UInt8(ascii: "="))
            out.append(remaining > 2 ? alphabet[Int(group & 63)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of `text`, or `PlaceholderError.invalidBase64` at the first character that cannot be there.
    static func decode(_ text: String) throws -> [UInt8] {
        var digits = Array(text.utf8)
        // Padding may only close the text, at most two characters, and only to a multiple of four.
        var padding = 0
        while padding < 2, let last = digits.last, last == UInt8(ascii: "=") {
            digits.removeLast()
            padding += 1
        }
        if padding > 0, (digits.count + padding) % 4 != 0 { throw PlaceholderError.invalidBase64(offset: digits.count) }
        // One leftover character carries only 6 bits, less than a byte.
        guard digits.count % 4 != 1 else { throw PlaceholderError.invalidBase64(offset: digits.count - 1) }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count * 3 / 4)
        var group: UInt32 = 0
        var filled = 0
        for (offset, digit) in digits.enumerated() {
            let value = values[Int(digit)]
            guard value != 0xFF else { throw PlaceholderError.invalidBase64(offset: offset) }
            group = group << 6 | UInt32(value)
            filled += 1
            if filled == 4 {
                out.append(UInt8(group >> 16 & 0xFF))
                out.append(UInt8(group >> 8 & 0xFF))
                out.append(UInt8(group & 0xFF))
                group = 0
                filled = 0
            }
        }
        switch filled {
        case 2: out.append(UInt8(group >> 4 & 0xFF))
        case 3:
            out.append(UInt8(group >> 10 & 0xFF))
            out.append(UInt8(group >> 2 & 0xFF))
        default: break
        }
        return out
    }
}
