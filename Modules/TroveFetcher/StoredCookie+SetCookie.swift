import Foundation
import TroveCore

extension StoredCookie {
    /// Longest name and value together a cookie may have (RFC 6265 §6.1's least a client must keep).
    static let maxNameAndValueBytes = 4096

    /// The cookie a `Set-Cookie` header value from `url` sets (RFC 6265 §5.2 and §5.3), received at `now`;
    /// nil when a client must ignore it: no "=" in its first part, an empty name, a name and value over
    /// 4096 bytes, or a Domain the host is not in. Reads Expires, Max-Age (which wins over Expires), Domain,
    /// Path and Secure; other attributes (HttpOnly, SameSite) mean nothing to a client that runs no scripts.
    /// A cookie that is already expired (`Max-Age=0`, a past Expires) is returned as such: storing it removes
    /// the cookie it replaces.
    package init?(setCookieHeader header: String, receivedFrom url: URL, at now: Date) {
        guard let host = Self.host(of: url) else { return nil }
        var parts = header.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        let pair = parts.removeFirst()
        guard let equals = pair.firstIndex(of: "=") else { return nil }
        let name = Self.trimmed(pair[..<equals])
        let value = Self.trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= Self.maxNameAndValueBytes else { return nil }

        var expires: Date?
        var maxAge: Date?
        var domainAttribute: String?
        var path: String?
        var secure = false
        // A repeated attribute: the last one counts (§5.3 reads "the last attribute ... with the name").
        for part in parts {
            let (attribute, attributeValue) = Self.attribute(part)
            switch attribute {
            case "expires":
                if let date = HTTPDate.parseLoosely(attributeValue) { expires = date }
            case "max-age":
                if let seconds = Self.maxAgeSeconds(attributeValue) {
                    maxAge = seconds <= 0 ? .distantPast : now.addingTimeInterval(TimeInterval(seconds))
                }
            case "domain":
                // An empty Domain is ignored (§5.2.3); a leading dot means nothing.
                let domain = (attributeValue.hasPrefix(".") ? attributeValue.dropFirst() : attributeValue[...])
                    .lowercased()
                if !domain.isEmpty { domainAttribute = domain }
            case "path":
                path = attributeValue.hasPrefix("/") ? attributeValue : nil
            case "secure":
                secure = true
            default:
                break
            }
        }

        var domain = host
        var hostOnly = true
        if let domainAttribute {
            guard Self.domain(host, matches: domainAttribute) else { return nil }
            // Without the public suffix list, a single label ("com", "localhost") stands for one: such a
            // Domain is a host-only cookie for that very host, and refused for any other.
            if domainAttribute.contains(".") || domainAttribute.contains(":") {
                domain = domainAttribute
                hostOnly = false
            } else if domainAttribute != host {
                return nil
            }
        }
        self.init(
            name: name, value: value, domain: domain, hostOnly: hostOnly, path: path ?? Self.defaultPath(of: url),
            expires: maxAge ?? expires, secure: secure)
    }

    /// An attribute's name (lowercased) and value, both trimmed; a value of "" when there is no "=".
    private static func attribute(_ text: String) -> (String, String) {
        guard let equals = text.firstIndex(of: "=") else { return (trimmed(text[...]).lowercased(), "") }
        return (trimmed(text[..<equals]).lowercased(), trimmed(text[text.index(after: equals)...]))
    }

    /// §5.2.2: an optional "-" and digits; anything else makes the client ignore the attribute.
    private static func maxAgeSeconds(_ text: String) -> Int? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : text[...]
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        // A number too long for Int is a very long time, not an error.
        let magnitude = Int(digits) ?? Int(Int32.max)
        return text.hasPrefix("-") ? -magnitude : magnitude
    }

    /// Without the spaces and tabs around it (§5.2's WSP).
    private static func trimmed(_ text: Substring) -> String {
        text.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
    }
}
