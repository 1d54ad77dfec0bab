import Foundation
import TroveCore

/// Where a Redis server is and how to log in: what a `redis://[user:password@]host[:port][/db]` URL says.
///
/// `description` never shows the password.
package struct RedisConfiguration: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// Host name or address.
    package var host: String
    /// TCP port (default 6379).
    package var port: Int
    /// ACL user; nil logs in as `default` (`AUTH password`).
    package var user: String?
    /// Password; nil sends no `AUTH`.
    package var password: String?
    /// Database number sent with `SELECT` on every new connection (default 0).
    package var database: Int

    /// A configuration from its parts.
    package init(host: String, port: Int = 6379, user: String? = nil, password: String? = nil, database: Int = 0) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
    }

    /// Parses `redis://[user:password@]host[:port][/db]`; user and password are percent-decoded.
    /// Throws `invalidConfiguration` naming what is wrong (the password is never echoed).
    package init(url: URL) throws {
        let shown = Self.redacted(url)
        func invalid(_ reason: String) -> TroveError {
            .invalidConfiguration("redis URL \(shown) \(reason); expected redis://[user:password@]host[:port][/db]")
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw invalid("cannot be parsed")
        }
        guard components.scheme?.lowercased() == "redis" else {
            throw invalid("has scheme '\(components.scheme ?? "")', not redis (TLS, rediss://, is not supported)")
        }
        guard var host = components.host, !host.isEmpty else { throw invalid("has no host") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if let port = components.port, !(1...65535).contains(port) {
            throw invalid("has port \(port), outside 1...65535")
        }
        guard components.query == nil else { throw invalid("has a query, which is not supported") }
        guard components.fragment == nil else { throw invalid("has a fragment, which is not supported") }

        var user: String?
        if let encoded = components.percentEncodedUser, !encoded.isEmpty {
            guard let decoded = encoded.removingPercentEncoding else {
                throw invalid("has a badly percent-encoded user")
            }
            user = decoded
        }
        var password: String?
        if let encoded = components.percentEncodedPassword {
            guard let decoded = encoded.removingPercentEncoding else {
                throw invalid("has a badly percent-encoded password")
            }
            password = decoded
        }
        if user != nil, password == nil {
            throw invalid("names user '\(user!)' without a password (write redis://user:password@host)")
        }

        var database = 0
        let path = components.percentEncodedPath
        if !path.isEmpty, path != "/" {
            let number = path.dropFirst()
            guard path.hasPrefix("/"), !number.isEmpty, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber),
                let parsed = Int(number), parsed <= 1_000_000
            else {
                throw invalid("has path '\(path)'; the path may only be a database number such as /0")
            }
            database = parsed
        }
        self.init(host: host, port: components.port ?? 6379, user: user, password: password, database: database)
    }

    /// `host:port`, with brackets around an IPv6 address.
    package var endpoint: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The user as named in messages (`default` when the URL names none).
    var userForMessages: String { user ?? "default" }

    /// `redis://user:***@host:port/db`.
    package var description: String {
        var text = "redis://"
        if password != nil {
            text += user.map { "\($0):***@" } ?? ":***@"
        }
        return text + "\(endpoint)/\(database)"
    }

    /// What `dump` and debuggers show: every field but the password's text.
    package var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "host": host, "port": port, "user": user as Any,
                "password": password == nil ? "none" : "***", "database": database
            ])
    }

    /// The URL as written but with any password replaced by `***`, for error messages.
    static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            // Unparseable: show only what cannot hold a password.
            return "\(url.scheme ?? "?")://…"
        }
        if components.percentEncodedPassword != nil { components.percentEncodedPassword = "***" }
        return components.string ?? "\(url.scheme ?? "?")://…"
    }
}
