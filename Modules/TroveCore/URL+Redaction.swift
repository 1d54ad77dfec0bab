import Foundation

extension URL {
    /// The URL as spans may show it (`url.full`): scheme, host, port and path; never the user info (a
    /// password), the query (a signature, a token) or the fragment; a `data:` URL only as its scheme (its
    /// payload is the image). The access log of `trove serve` takes the signature out of its paths for the
    /// same reason; this is the rule for source URLs, for the server's spans and every module's log lines too.
    package var redactedForSpans: String {
        guard var parts = URLComponents(url: self, resolvingAgainstBaseURL: false) else { return "" }
        if parts.scheme?.lowercased() == "data" { return "data:" }
        parts.user = nil
        parts.password = nil
        parts.query = nil
        parts.fragment = nil
        return parts.string ?? ""
    }
}

extension URL {
    /// `text` with each URL in it (a scheme, `://`, and what follows up to a space or a quote) as
    /// `redactedForSpans` shows it; one that does not parse is left as its scheme.
    package static func redactingURLs(in text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let separator = rest.range(of: "://") {
            let schemeStart =
                rest[..<separator.lowerBound].lastIndex { !($0.isLetter || $0.isNumber || "+-.".contains($0)) }
                .map { rest.index(after: $0) } ?? rest.startIndex
            let end =
                rest[separator.upperBound...].firstIndex { $0.isWhitespace || "\"'<>".contains($0) } ?? rest.endIndex
            result += rest[..<schemeStart]
            let candidate = String(rest[schemeStart..<end])
            let redacted = URL(string: candidate)?.redactedForSpans ?? ""
            result += redacted.isEmpty ? String(rest[schemeStart..<separator.upperBound]) + "…" : redacted
            rest = rest[end...]
        }
        return result + rest
    }
}
