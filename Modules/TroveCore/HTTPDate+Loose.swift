import Foundation

// The loose reading of dates that cookies need (RFC 6265 §5.1.1 accepts far more than RFC 9110 does).

extension HTTPDate {
    /// The three-letter month names in lower case, packed one a UInt32 ("jan" is j | a << 8 | n << 16).
    private static let looseMonths: [UInt32] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"
    ]
    .map { name in name.utf8.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }

    /// The date in a cookie's `Expires`, read loosely: tokens split at spaces, commas and dashes, a
    /// two-digit year allowed, as servers write cookie dates in many shapes. Nil when no date is there.
    package static func parseLoosely(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parseLoosely(bytes: $0) }
    }

    private static func parseLoosely(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var fields = LooseFields()
        var start = 0
        var isFirst = true
        // Tokens are separated by spaces, commas and dashes; the first (the weekday) says nothing the rest
        // does not.
        for end in 0...bytes.count where end == bytes.count || isSeparator(bytes[end]) {
            defer { start = end + 1 }
            guard end > start else { continue }
            if isFirst {
                isFirst = false
                continue
            }
            guard fields.read(UnsafeBufferPointer(rebasing: bytes[start..<end])) else { return nil }
        }
        guard let day = fields.day, let month = fields.month, let year = fields.year,
            let (hour, minute, second) = fields.clock,
            (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "-")
    }

    /// What the tokens after the weekday said so far.
    private struct LooseFields {
        var day: Int?, month: Int?, year: Int?, clock: (Int, Int, Int)?

        /// Takes one token; false when it is nothing a date holds.
        mutating func read(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
            if token.count == 3, let index = HTTPDate.looseMonths.firstIndex(of: HTTPDate.looseWord(token)) {
                month = index + 1
            } else if token.contains(UInt8(ascii: ":")) {
                let parts = token.split(separator: UInt8(ascii: ":")).map {
                    HTTPDate.looseNumber(UnsafeBufferPointer(rebasing: $0))
                }
                guard parts.count == 3, let hour = parts[0], let minute = parts[1], let second = parts[2] else {
                    return false
                }
                clock = (hour, minute, second)
            } else if let number = HTTPDate.looseNumber(token) {
                if token.count <= 2 && day == nil {
                    day = number
                } else if token.count == 2 {
                    year = number < 70 ? 2000 + number : 1900 + number  // RFC 850's two digits
                } else if token.count == 4 {
                    year = number
                } else {
                    return false
                }
            } else if !(token.count == 3 && HTTPDate.looseWord(token) == HTTPDate.looseGMT) {
                return false
            }
            return true
        }
    }

    private static let looseGMT =
        UInt32(UInt8(ascii: "g")) | UInt32(UInt8(ascii: "m")) << 8 | UInt32(UInt8(ascii: "t")) << 16

    /// A three-byte token in lower case, packed as `months` is (ASCII letters only change).
    private static func looseWord(_ token: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var word: UInt32 = 0
        for (shift, byte) in zip([0, 8, 16] as [UInt32], token) {
            let lowered = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
            word |= UInt32(lowered) << shift
        }
        return word
    }

    /// The token's value when it is 1 to 4 ASCII digits (no date field is longer), else nil.
    private static func looseNumber(_ token: UnsafeBufferPointer<UInt8>) -> Int? {
        guard (1...4).contains(token.count) else { return nil }
        var value = 0
        for byte in token {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
