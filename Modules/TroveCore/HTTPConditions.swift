import Foundation

/// The two conditions a GET asks about what it already holds (RFC 9110 §13.1.2, §13.1.3), evaluated the same
/// way by the server for its results and by the pipeline for a cached response: `If-None-Match` by the weak
/// comparison, and, only when that field is absent, `If-Modified-Since` against `Last-Modified`.
package enum HTTPConditions {
    /// Whether a request with these `If-None-Match` and `If-Modified-Since` values (nil when absent) holds a
    /// representation with this `ETag` and `Last-Modified`, so that a 304 answers it. `If-None-Match`
    /// decides whenever it is sent (§13.2.2), even against a response without an `ETag`.
    package static func notModified(
        ifNoneMatch: String?, ifModifiedSince: String?, entityTag: String?, lastModified: String?
    ) -> Bool {
        if let ifNoneMatch { return Self.ifNoneMatch(ifNoneMatch, matches: entityTag) }
        guard let ifModifiedSince, let lastModified else { return false }
        return notModified(lastModified: lastModified, ifModifiedSince: ifModifiedSince)
    }

    /// Whether a request field is one of these two conditions (the name in any case).
    package static func isConditionField(_ name: String) -> Bool {
        name.caseInsensitiveEquals("if-none-match") || name.caseInsensitiveEquals("if-modified-since")
    }

    /// Whether an `If-None-Match` value is `*` (any current representation, tagged or not) or lists `tag`
    /// (nil: the representation has none), compared weakly (a `W/` on either side does not matter). Tags
    /// are compared without their quotes too, so an origin that sends them unquoted, as some do, still
    /// matches what a client echoes back.
    package static func ifNoneMatch(_ header: String, matches tag: String?) -> Bool {
        let wanted = tag.map(opaque)
        for candidate in header.split(separator: ",") {
            let item = candidate.trimmingCharacters(in: .whitespaces)
            if item == "*" || opaque(item) == wanted { return true }
        }
        return false
    }

    /// Whether a resource last modified at `lastModified` is unchanged since `ifModifiedSince`: both must be
    /// HTTP dates, and the resource not newer. Unreadable dates mean "changed".
    package static func notModified(lastModified: String, ifModifiedSince: String) -> Bool {
        guard let modified = HTTPDate.parse(lastModified), let since = HTTPDate.parse(ifModifiedSince) else {
            return false
        }
        return modified <= since
    }

    /// A tag's opaque part: without a leading `W/` (any case) and the quotes around it.
    private static func opaque(_ tag: some StringProtocol) -> Substring {
        var text = tag.trimmingCharacters(in: .whitespaces)[...]
        if text.hasPrefix("W/") || text.hasPrefix("w/") { text = text.dropFirst(2) }
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = text.dropFirst().dropLast() }
        return text
    }
}
