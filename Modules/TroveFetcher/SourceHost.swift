/// A URL's host as the connection would read it, decided before any DNS lookup: an address in any
/// spelling browsers and getaddrinfo accept, `localhost`, or a name to resolve. Reading the loose
/// spellings here is what stops `http://2130706433/` or `http://0x7f.1/` from reaching 127.0.0.1 past a
/// check that only knows dotted quads.
package enum SourceHost: Sendable, Hashable {
    /// An IP literal: `127.0.0.1`, `[::ffff:7f00:1]`, and the IPv4 forms of the WHATWG URL standard and
    /// inet_aton (`127.1`, `0177.0.0.1`, `0x7f.1`, `2130706433`).
    case address(IPAddress)
    /// `localhost` or a name under `.localhost`, which resolvers answer with loopback (RFC 6761): treated
    /// as 127.0.0.1 without asking one.
    case localhost
    /// A DNS name, lowercased, without a trailing dot.
    case name(String)

    /// Reads `host` as `URL.host` gives it (percent-decoded, IPv6 with or without brackets). Throws the
    /// reason a host can never be fetched: characters no DNS name has, or a number that is not a valid
    /// address (`1.2.3.4.5`, `256.1.1.1`), which a lenient resolver might still read as one.
    package init(urlHost host: String) throws(SourceHostError) {
        var text = Substring(host)
        if text.hasPrefix("["), text.hasSuffix("]") {
            guard let v6 = IPAddress.parseIPv6(text.dropFirst().dropLast()) else {
                throw SourceHostError(reason: "its host \(host) is not a valid IPv6 address")
            }
            self = .address(.v6(v6))
            return
        }
        if text.contains(":") {
            guard let v6 = IPAddress.parseIPv6(text) else {
                throw SourceHostError(reason: "its host \(host) is not a valid IPv6 address")
            }
            self = .address(.v6(v6))
            return
        }
        // One trailing dot names the same host (the DNS root); resolvers ignore it.
        if text.hasSuffix(".") { text = text.dropLast() }
        let lowered = text.lowercased()
        guard !lowered.isEmpty, lowered.utf8.allSatisfy({ Self.hostBytes.contains($0) }) else {
            throw SourceHostError(
                reason: "its host \"\(host)\" has characters no host name has (letters, digits, "
                    + "'-', '.' and '_' only; write international names in their xn-- form)")
        }
        let labels = lowered.split(separator: ".", omittingEmptySubsequences: false)
        guard !labels.contains(where: \.isEmpty) else {
            throw SourceHostError(reason: "its host \(host) has an empty label")
        }
        // As in the WHATWG URL standard: a host whose last label is a number is an IPv4 address or nothing.
        if let last = labels.last, Self.isNumber(last) {
            guard let v4 = Self.parseLooseIPv4(labels) else {
                throw SourceHostError(reason: "its host \(host) looks like an IPv4 address but is not a valid one")
            }
            self = .address(.v4(v4))
            return
        }
        if lowered == "localhost" || lowered.hasSuffix(".localhost") {
            self = .localhost
            return
        }
        self = .name(lowered)
    }

    private static let hostBytes = Set("abcdefghijklmnopqrstuvwxyz0123456789-._".utf8)

    /// Decimal, octal (leading 0) or hex (0x): the number syntax of the WHATWG IPv4 parser and inet_aton.
    private static func isNumber(_ label: Substring) -> Bool {
        if label.hasPrefix("0x") { return label.dropFirst(2).allSatisfy(\.isHexDigit) }
        return label.allSatisfy(\.isASCIIDigit)
    }

    private static func number(_ label: Substring) -> UInt64? {
        if label.hasPrefix("0x") {
            let digits = label.dropFirst(2)
            return digits.isEmpty ? 0 : digits.count > 16 ? nil : UInt64(digits, radix: 16)
        }
        guard label.count <= 20 else { return nil }
        if label.count > 1, label.hasPrefix("0") { return UInt64(label.dropFirst(), radix: 8) }
        return UInt64(label)
    }

    /// One to four numbers; all but the last are bytes, the last fills the remaining bytes (`127.1` is
    /// 127.0.0.1, `2130706433` is 127.0.0.1).
    private static func parseLooseIPv4(_ labels: [Substring]) -> UInt32? {
        guard (1...4).contains(labels.count) else { return nil }
        var numbers: [UInt64] = []
        for label in labels {
            guard isNumber(label), let value = number(label) else { return nil }
            numbers.append(value)
        }
        let last = numbers.removeLast()
        guard numbers.allSatisfy({ $0 <= 255 }) else { return nil }
        let lastBits = UInt64(8 * (4 - numbers.count))
        guard last < (1 << lastBits) else { return nil }
        var value: UInt64 = 0
        for (index, byte) in numbers.enumerated() { value |= byte << UInt64(24 - 8 * index) }
        return UInt32(value | last)
    }
}

/// Why a URL host can never be fetched.
package struct SourceHostError: Error, Sendable, Equatable {
    /// Said as the end of "the URL is not an allowed source: ...".
    package var reason: String
}
