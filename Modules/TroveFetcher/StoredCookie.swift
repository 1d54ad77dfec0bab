import Foundation

/// One cookie as a store keeps it (RFC 6265 §5.3): what a `Set-Cookie` header said, resolved against the
/// URL that sent it, and the rules for which requests it goes with (§5.4).
package struct StoredCookie: Sendable, Equatable {
    /// The cookie's name, as sent back in the `Cookie` header.
    package var name: String
    /// The cookie's value, as sent back in the `Cookie` header.
    package var value: String
    /// Lowercased, without a leading dot: the host that set it (host-only) or its Domain attribute.
    package var domain: String
    /// True when the header had no Domain attribute: the cookie goes to `domain` itself, not its subdomains.
    package var hostOnly: Bool
    /// The cookie goes with requests for this path and the paths below it.
    package var path: String
    /// When the cookie stops being sent; nil for a session cookie, kept for as long as its store.
    package var expires: Date?
    /// True when the cookie goes only over https (the Secure attribute).
    package var secure: Bool

    /// A cookie with every attribute given; `init?(setCookieHeader:receivedFrom:at:)` reads one from a header.
    package init(
        name: String, value: String, domain: String, hostOnly: Bool, path: String = "/", expires: Date? = nil,
        secure: Bool = false
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.hostOnly = hostOnly
        self.path = path
        self.expires = expires
        self.secure = secure
    }

    /// True once `expires` has passed; a session cookie never expires.
    package func isExpired(at now: Date) -> Bool {
        expires.map { $0 <= now } ?? false
    }

    /// Whether the cookie goes with a request to `url` at `now`: its host, path and scheme match and it has
    /// not expired.
    package func applies(to url: URL, at now: Date) -> Bool {
        guard let host = Self.host(of: url), !isExpired(at: now) else { return false }
        if secure && url.scheme?.lowercased() != "https" { return false }
        let hostMatches = hostOnly ? host == domain : Self.domain(host, matches: domain)
        return hostMatches && Self.path(Self.requestPath(of: url), matches: path)
    }

    /// The same cookie in a store: the same name, domain and path (a later one replaces it).
    func isSameSlot(as other: StoredCookie) -> Bool {
        name == other.name && domain == other.domain && path == other.path
    }

    // MARK: - RFC 6265's matching rules

    /// The URL's host, lowercased, as cookies compare it.
    static func host(of url: URL) -> String? {
        guard let host = url.host, !host.isEmpty else { return nil }
        return host.lowercased()
    }

    /// The path a request is for, percent-encoded as sent; "/" when the URL has none.
    static func requestPath(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
        return path.isEmpty ? "/" : path
    }

    /// §5.1.3: the host is the domain, or a host name (not an address) ending in "." and the domain.
    static func domain(_ host: String, matches domain: String) -> Bool {
        host == domain || (host.hasSuffix("." + domain) && !isIPAddress(host))
    }

    /// §5.1.4: the paths are equal, or the cookie's is a prefix of the request's ending at a "/".
    static func path(_ requestPath: String, matches cookiePath: String) -> Bool {
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return requestPath.count == cookiePath.count || cookiePath.hasSuffix("/")
            || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// §5.1.4: the request path up to, not including, its last "/"; "/" when that leaves nothing.
    static func defaultPath(of url: URL) -> String {
        let path = requestPath(of: url)
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// An IPv4 address in dotted form, or any IPv6 address: never matched as a domain's subdomain.
    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") })
    }
}
