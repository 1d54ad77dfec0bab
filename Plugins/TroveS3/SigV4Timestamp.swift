import Foundation

/// The two forms of a signing time SigV4 uses, in UTC: `20150830T123600Z` (the `x-amz-date` header) and
/// `20150830` (the credential scope). Worked out from the epoch seconds so no formatter or calendar (and
/// no locale) is involved.
struct SigV4Timestamp: Sendable, Equatable {
    /// `yyyyMMdd'T'HHmmss'Z'`.
    let dateTime: String
    /// `yyyyMMdd`.
    let date: String

    init(_ instant: Date) {
        let seconds = Int(instant.timeIntervalSince1970.rounded(.down))
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = Self.civil(fromDays: days)
        date = Self.digits(year, 4) + Self.digits(month, 2) + Self.digits(day, 2)
        dateTime =
            date + "T" + Self.digits(secondOfDay / 3600, 2) + Self.digits(secondOfDay / 60 % 60, 2)
            + Self.digits(secondOfDay % 60, 2) + "Z"
    }

    private static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's days-to-civil algorithm).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
