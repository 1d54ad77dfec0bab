import Foundation

/// Reads an HTTP Retry-After value (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
enum RetryAfter {
    /// Longest wait believed; anything larger is a server error, and would overflow arithmetic later.
    static let ceiling: Duration = .seconds(86_400)

    static func parse(_ value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            guard let seconds = Int64(text) else { return ceiling }  // only digits, so too many of them
            return min(.seconds(seconds), ceiling)
        }
        guard let date = httpDate.withLock({ $0.date(from: text) }) else { return nil }
        let seconds = max(0, date.timeIntervalSince(now))
        return min(.milliseconds(Int64(min(seconds, 86_400) * 1000)), ceiling)
    }

    /// IMF-fixdate, the form servers must send ("Sun, 06 Nov 1994 08:49:37 GMT"). DateFormatter is not
    /// thread-safe, hence the lock.
    private static let httpDate: LockedFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return LockedFormatter(formatter)
    }()
}
