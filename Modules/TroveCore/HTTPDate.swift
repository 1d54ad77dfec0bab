import Foundation

/// Reads HTTP dates (RFC 9110 §5.6.7): the IMF-fixdate servers must send ("Sun, 06 Nov 1994 08:49:37 GMT")
/// and the two obsolete forms a recipient must still accept (RFC 850's "Sunday, 06-Nov-94 08:49:37 GMT"
/// and asctime's "Sun Nov  6 08:49:37 1994"). Written by hand over the UTF-8 bytes: no formatter, no lock,
/// no locale, and no string made per token, since every response's Date (and often Expires) passes here.
package enum HTTPDate {
    /// The three-letter month names in lower case, packed one a UInt32 ("jan" is j | a << 8 | n << 16).
    private static let months: [UInt32] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"
    ]
    .map { name in name.utf8.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }

    /// The date, or nil when the text is none of the three forms.
    package static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var fields = Fields()
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
    private struct Fields {
        var day: Int?, month: Int?, year: Int?, clock: (Int, Int, Int)?

        /// Takes one token; false when it is nothing a date holds.
        mutating func read(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
            if token.count == 3, let index = HTTPDate.months.firstIndex(of: HTTPDate.lowercasedWord(token)) {
                month = index + 1
            } else if token.contains(UInt8(ascii: ":")) {
                let parts = token.split(separator: UInt8(ascii: ":")).map {
                    HTTPDate.number(UnsafeBufferPointer(rebasing: $0))
                }
                guard parts.count == 3, let hour = parts[0], let minute = parts[1], let second = parts[2] else {
                    return false
                }
                clock = (hour, minute, second)
            } else if let number = HTTPDate.number(token) {
                if token.count <= 2 && day == nil {
                    day = number
                } else if token.count == 2 {
                    year = number < 70 ? 2000 + number : 1900 + number  // RFC 850's two digits
                } else if token.count == 4 {
                    year = number
                } else {
                    return false
                }
            } else if !(token.count == 3 && HTTPDate.lowercasedWord(token) == HTTPDate.gmt) {
                return false
            }
            return true
        }
    }

    private static let gmt =
        UInt32(UInt8(ascii: "g")) | UInt32(UInt8(ascii: "m")) << 8 | UInt32(UInt8(ascii: "t")) << 16

    /// A three-byte token in lower case, packed as `months` is (ASCII letters only change).
    private static func lowercasedWord(_ token: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var word: UInt32 = 0
        for (shift, byte) in zip([0, 8, 16] as [UInt32], token) {
            let lowered = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
            word |= UInt32(lowered) << shift
        }
        return word
    }

    /// The token's value when it is 1 to 4 ASCII digits (no date field is longer), else nil.
    private static func number(_ token: UnsafeBufferPointer<UInt8>) -> Int? {
        guard (1...4).contains(token.count) else { return nil }
        var value = 0
        for byte in token {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (the usual civil-to-days count,
    /// with years starting in March so the leap day comes last).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
