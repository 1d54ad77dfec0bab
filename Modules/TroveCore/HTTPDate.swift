import Foundation

/// Reads HTTP dates (RFC 9110 §5.6.7): the IMF-fixdate servers must send ("Sun, 06 Nov 1994 08:49:37 GMT")
/// and the two obsolete forms a recipient must still accept (RFC 850's "Sunday, 06-Nov-94 08:49:37 GMT"
/// and asctime's "Sun Nov  6 08:49:37 1994"). Written by hand: no formatter, no lock, no locale.
public enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date, or nil when the text is none of the three forms.
    public static func parse(_ text: String) -> Date? {
        let tokens = text.lowercased().split { $0 == " " || $0 == "," || $0 == "-" }.map(String.init)
        var day: Int?, month: Int?, year: Int?, clock: (Int, Int, Int)?
        for token in tokens.dropFirst() {  // the weekday says nothing the rest does not
            if let index = months.firstIndex(of: token) {
                month = index + 1
            } else if token.contains(":") {
                let parts = token.split(separator: ":").compactMap { Int($0) }
                guard parts.count == 3 else { return nil }
                clock = (parts[0], parts[1], parts[2])
            } else if let number = Int(token) {
                if token.count <= 2 && day == nil {
                    day = number
                } else if token.count == 2 {
                    year = number < 70 ? 2000 + number : 1900 + number  // RFC 850's two digits
                } else if token.count == 4 {
                    year = number
                } else {
                    return nil
                }
            } else if token != "gmt" {
                return nil
            }
        }
        guard let day, let month, let year, let (hour, minute, second) = clock,
            (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
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
