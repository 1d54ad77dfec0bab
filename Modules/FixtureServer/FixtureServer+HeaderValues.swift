import Foundation

// The header values the server answers with: content-hash ETags, HTTP dates, content types by extension.
extension FixtureServer {
    /// The ETag this server gives `data`: a content hash, so changed content gets a new tag.
    public static func etag(for data: Data) -> String {
        "\"\(String(UInt32(truncatingIfNeeded: data.hashValueStable), radix: 16))-\(data.count)\""
    }

    /// An IMF-fixdate ("Mon, 02 Nov 2026 10:00:00 GMT"), as in Last-Modified.
    public static func httpDate(_ date: Date) -> String {
        httpDateFormatter().string(from: date)
    }

    static func parseHTTPDate(_ text: String) -> Date? {
        httpDateFormatter().date(from: text)
    }

    /// A new formatter per use: DateFormatter is not thread-safe, and a test server need not be fast here.
    private static func httpDateFormatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }

    static func contentType(forName name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }
}

extension Data {
    /// FNV-1a over the bytes: a content hash that is stable across runs (Swift's hashValue is seeded).
    fileprivate var hashValueStable: UInt64 {
        // FNV-1a over the raw bytes (Data's element iterator made this the server's main cost per request).
        withUnsafeBytes { bytes in bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 } }
    }
}
