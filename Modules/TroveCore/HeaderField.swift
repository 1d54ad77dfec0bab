import Foundation

/// One HTTP header field as it came: the name as sent and its value. A response keeps its fields in order,
/// one per line, so a name may appear more than once.
public struct HeaderField: Sendable, Hashable, Codable {
    /// The field name as the origin spelled it (compare names without regard to case).
    public var name: String
    /// The field value, leading and trailing whitespace removed.
    public var value: String

    /// A field from its name and value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

extension [HeaderField] {
    /// Every value of the fields named `name` (any case), in order.
    package func values(named name: String) -> [String] {
        compactMap { $0.name.caseInsensitiveEquals(name) ? $0.value : nil }
    }

    /// The first value of the fields named `name` (any case), or nil.
    package func first(named name: String) -> String? {
        first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// The fields a cache keeps with a response: all but the connection's own (RFC 9111 §3.1), which are
    /// the hop-by-hop fields and any field the `Connection` header names, and those a qualified `no-cache`
    /// names (§5.2.2.4: not to be reused without revalidation; see `CacheDirectives.noCache`). The disk
    /// entry's header is sized from these when a body streams in and written with them when it commits.
    package var storedWithResponse: [HeaderField] {
        // A Connection option names a field that described only the hop it came over (RFC 9110 §7.6.1).
        let named = values(named: "connection").flatMap(\.listedNames)
        let unreusable = CacheDirectives.directives(in: values(named: "cache-control").joined(separator: ","))
            .filter { $0.name == "no-cache" }.flatMap { CacheDirectives.unreusableFields($0.value) ?? [] }
        let dropped = HeaderField.hopByHopNames.union(named).union(unreusable)
        return filter { !dropped.contains($0.name.lowercased()) }
    }
}

extension HeaderField {
    /// The lower-case names of the fields that belong to one connection, or to the proxy it went through
    /// (RFC 9111 §3.1 names the three Proxy-Auth ones), never stored with a response.
    static let hopByHopNames: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization"
    ]
}

extension [String: String] {
    /// The value of the request field `name` (any case); with several spellings of the name, one of them.
    package func value(named name: String) -> String? {
        first { $0.key.caseInsensitiveEquals(name) }?.value
    }
}

extension String {
    /// The members of a comma-separated field value (RFC 9110 §5.6.1), lower case, without the whitespace
    /// around them, empty ones left out: the names a `Connection`, a `Vary` or a qualified `no-cache` lists.
    package var listedNames: [String] {
        split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// ASCII case-insensitive equality, as field names and many tokens compare.
    package func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count
            && zip(utf8, other.utf8).allSatisfy { a, b in
                a == b || (a | 0x20 == b | 0x20 && (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(a | 0x20))
            }
    }
}
