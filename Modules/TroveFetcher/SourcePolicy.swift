import Foundation
import TroveCore

/// Which source URLs a proxy may fetch for its callers: the schemes (http and https always; `file:`, `data:`
/// and `s3:` only when switched on) and, when any are given, the allowed prefixes.
///
/// Prefixes are compared on the normalised URL — lowercase scheme and host, IP literals in their one
/// canonical spelling, no default port, no userinfo, the path percent-decoded with `.` and `..` segments
/// removed — and match on a boundary: a prefix ending in `/` admits what lies under it, and any other
/// prefix admits itself followed by `/`, `?` or nothing. So `https://example.com` admits
/// `https://example.com/a.jpg` but neither `https://example.com.evil/` nor `https://example.com@evil/`
/// (whose host is `evil`), and `https://example.com/img/` does not admit `https://example.com/img/../x`.
///
/// Redirects are not held to the prefixes (origins redirect to their storage), as in imgproxy; every hop is
/// held to the `AddressPolicy`.
package struct SourcePolicy: Sendable, Hashable {
    /// The allowed prefixes, normalised; empty allows every http(s) source.
    package let allowedPrefixes: [String]
    /// `file://` sources: off by default, and under the prefixes when there are any.
    package var allowFileURLs: Bool
    /// `data:` sources (no origin to compare, so prefixes do not apply): off by default.
    package var allowDataURLs: Bool
    /// `s3://bucket/key` sources (imgproxy's `IMGPROXY_USE_S3`): off by default, and under the prefixes when
    /// there are any.
    package var allowS3URLs: Bool = false

    /// Every http and https source, no file:, data: or s3: ones.
    package static let anyHTTPSource = SourcePolicy(normalizedPrefixes: [], allowFileURLs: false, allowDataURLs: false)

    private init(normalizedPrefixes: [String], allowFileURLs: Bool, allowDataURLs: Bool) {
        self.allowedPrefixes = normalizedPrefixes
        self.allowFileURLs = allowFileURLs
        self.allowDataURLs = allowDataURLs
    }

    /// Throws `TroveError.invalidConfiguration` for a prefix that is not an absolute URL with a host (or a
    /// file URL).
    package init(
        allowedPrefixes: [String] = [], allowFileURLs: Bool = false, allowDataURLs: Bool = false,
        allowS3URLs: Bool = false
    ) throws {
        var normalizedPrefixes: [String] = []
        for text in allowedPrefixes {
            guard let url = URL(string: text), url.scheme != nil else {
                throw TroveError.invalidConfiguration(
                    "allowed source prefix \"\(text)\" is not an absolute URL; "
                        + "write it like https://images.example.com/")
            }
            do throws(SourceHostError) {
                normalizedPrefixes.append(try Self.normalized(url, asPrefix: true))
            } catch {
                throw TroveError.invalidConfiguration(
                    "allowed source prefix \"\(text)\" cannot be used: \(error.reason)")
            }
        }
        self.allowedPrefixes = normalizedPrefixes
        self.allowFileURLs = allowFileURLs
        self.allowDataURLs = allowDataURLs
        self.allowS3URLs = allowS3URLs
    }

    /// Why s3: sources are refused while they are off, naming the switches.
    package static let s3SourcesOff =
        "s3: sources are off; switch them on with IMGPROXY_USE_S3=true (trove serve: --s3-sources)"

    /// Throws `TroveError.sourceNotAllowed` naming the rule `url` breaks; returns when it may be fetched.
    package func check(_ url: URL) throws {
        let scheme = url.scheme?.lowercased() ?? ""
        let shown = scheme == "data" ? String(url.absoluteString.prefix(64)) : url.absoluteString
        func refuse(_ reason: String) -> TroveError { .sourceNotAllowed(url: shown, reason: reason) }
        switch scheme {
        case "http", "https":
            break
        case "file":
            guard allowFileURLs else { throw refuse("file: sources are off (allowFileURLs)") }
        case "data":
            guard allowDataURLs else { throw refuse("data: sources are off (allowDataURLs)") }
            return
        case "s3":
            guard allowS3URLs else { throw refuse(Self.s3SourcesOff) }
        default:
            throw refuse(
                "only http and https sources are allowed (and file:, data: or s3: when switched on), not \(scheme):")
        }
        let normalized: String
        do {
            normalized = try Self.normalized(url, asPrefix: false)
        } catch {
            throw refuse(error.reason)
        }
        guard allowedPrefixes.isEmpty || allowedPrefixes.contains(where: { Self.admits($0, normalized) }) else {
            throw refuse("it is under none of the \(allowedPrefixes.count) allowed source prefixes")
        }
    }

    /// Whether `prefix` admits `source`, both normalised: a plain prefix ending in `/`, else a prefix
    /// followed by `/`, `?` or the end.
    static func admits(_ prefix: String, _ source: String) -> Bool {
        guard source.hasPrefix(prefix) else { return false }
        if prefix.hasSuffix("/") || source.count == prefix.count { return true }
        let next = source[source.index(source.startIndex, offsetBy: prefix.count)]
        return next == "/" || next == "?"
    }

    /// The form prefixes are compared in. A source's empty path is `/`; a prefix's stays empty, so the
    /// boundary rule decides.
    static func normalized(_ url: URL, asPrefix: Bool) throws(SourceHostError) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        var authority = ""
        if scheme == "file" {
            let host = url.host?.lowercased() ?? ""
            guard host.isEmpty || host == "localhost" else {
                throw SourceHostError(reason: "a file: URL must not name a host (\(host))")
            }
        } else {
            guard let host = url.host, !host.isEmpty else { throw SourceHostError(reason: "it has no host") }
            switch try SourceHost(urlHost: host) {
            case let .address(.v6(bits)): authority = "[\(IPAddress.v6(bits))]"
            case let .address(address): authority = address.description
            case .localhost: authority = "localhost"
            case let .name(name): authority = name
            }
            let defaultPort = scheme == "https" ? 443 : 80
            if let port = url.port, port != defaultPort { authority += ":\(port)" }
        }
        let rawPath = url.path(percentEncoded: true)
        guard let decodedPath = rawPath.percentDecoded else {
            throw SourceHostError(reason: "its path has invalid percent-encoding")
        }
        var path = Self.removingDotSegments(decodedPath)
        if path.isEmpty, !asPrefix { path = "/" }
        var result = "\(scheme)://\(authority)\(path)"
        if let query = url.query(percentEncoded: true) { result += "?\(query)" }
        return result
    }

    /// RFC 3986 §5.2.4 on segments: `.` goes, `..` takes the segment before it with it.
    static func removingDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            if segment == "." || segment == ".." {
                if segment == "..", output.count > 1 { output.removeLast() }
                if isLast { output.append("") }
            } else {
                output.append(segment)
            }
        }
        return output.joined(separator: "/")
    }
}
