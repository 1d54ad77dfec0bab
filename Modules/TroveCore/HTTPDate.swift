import Foundation

/// Reads HTTP dates (RFC 9110 §5.6.7): the IMF-fixdate servers must send ("Sun, 06 Nov 1994 08:49:37 GMT")
/// and the two obsolete forms a recipient must still accept (RFC 850's "Sunday, 06-Nov-94 08:49:37 GMT"
/// and asctime's "Sun Nov  6 08:49:37 1994"), each exactly as its grammar spells it: a two-digit year
/// after a short weekday, a missing comma, dashes in an IMF-fixdate or a one-digit hour make no date, so
/// an `Expires` written so means "already expired". Names and `GMT` are read in any case, as browsers do.
/// Written by hand over the UTF-8 bytes: no formatter, no lock, no locale.
package enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longDays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// The date, or nil when the text is none of the three forms.
    package static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        return imfFixdate(bytes) ?? rfc850(bytes) ?? asctime(bytes)
    }

    /// "Sun, 06 Nov 1994 08:49:37 GMT"
    private static func imfFixdate(_ b: [UInt8]) -> Date? {
        guard b.count == 29, word(b, 0, 3, in: days) != nil, b[3] == comma, b[4] == space,
            let day = digits(b, 5, 2), b[7] == space, let month = word(b, 8, 3, in: months), b[11] == space,
            let year = digits(b, 12, 4), b[16] == space, let clock = clock(b, 17), b[25] == space,
            isGMT(b, 26)
        else { return nil }
        return date(year: year, month: month + 1, day: day, clock)
    }

    /// "Sunday, 06-Nov-94 08:49:37 GMT"
    private static func rfc850(_ b: [UInt8]) -> Date? {
        guard let comma = b.firstIndex(of: comma), word(b, 0, comma, in: longDays) != nil,
            b.count == comma + 24, b[comma + 1] == space,
            let day = digits(b, comma + 2, 2), b[comma + 4] == dash, let month = word(b, comma + 5, 3, in: months),
            b[comma + 8] == dash, let shortYear = digits(b, comma + 9, 2), b[comma + 11] == space,
            let clock = clock(b, comma + 12), b[comma + 20] == space, isGMT(b, comma + 21)
        else { return nil }
        // Two digits: the century that puts the year nearest now (RFC 9110 says within 50 years).
        return date(year: shortYear < 70 ? 2000 + shortYear : 1900 + shortYear, month: month + 1, day: day, clock)
    }

    /// "Sun Nov  6 08:49:37 1994"
    private static func asctime(_ b: [UInt8]) -> Date? {
        guard b.count == 24, word(b, 0, 3, in: days) != nil, b[3] == space, let month = word(b, 4, 3, in: months),
            b[7] == space, b[10] == space, let clock = clock(b, 11), b[19] == space, let year = digits(b, 20, 4)
        else { return nil }
        let day = b[8] == space ? digits(b, 9, 1) : digits(b, 8, 2)
        guard let day else { return nil }
        return date(year: year, month: month + 1, day: day, clock)
    }

    private static let comma = UInt8(ascii: ","), space = UInt8(ascii: " "), dash = UInt8(ascii: "-")

    /// "HH:MM:SS" at `offset`, each part two digits.
    private static func clock(_ b: [UInt8], _ offset: Int) -> (Int, Int, Int)? {
        guard let hour = digits(b, offset, 2), b[offset + 2] == UInt8(ascii: ":"),
            let minute = digits(b, offset + 3, 2),
            b[offset + 5] == UInt8(ascii: ":"), let second = digits(b, offset + 6, 2)
        else { return nil }
        return (hour, minute, second)
    }

    private static func isGMT(_ b: [UInt8], _ offset: Int) -> Bool {
        word(b, offset, 3, in: ["gmt"]) != nil
    }

    /// The index in `words` of the `count` letters at `offset`, compared in lower case.
    private static func word(_ b: [UInt8], _ offset: Int, _ count: Int, in words: [String]) -> Int? {
        guard offset + count <= b.count else { return nil }
        let lowered = b[offset..<offset + count].map {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0
        }
        return words.firstIndex { $0.utf8.elementsEqual(lowered) }
    }

    /// Exactly `count` ASCII digits at `offset`.
    private static func digits(_ b: [UInt8], _ offset: Int, _ count: Int) -> Int? {
        guard offset + count <= b.count else { return nil }
        var value = 0
        for byte in b[offset..<offset + count] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func date(year: Int, month: Int, day: Int, _ clock: (Int, Int, Int)) -> Date? {
        let (hour, minute, second) = clock
        guard (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
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
