import Foundation

/// An IPv4 or IPv6 address: what a URL host or a DNS answer comes down to, and what the SSRF rules
/// (`AddressPolicy`) judge.
package enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bits in network order read as one number: 127.0.0.1 is 0x7F00_0001.
    case v4(UInt32)
    /// The 128 bits in network order read as one number: ::1 is 1.
    case v6(UInt128)

    /// Parses the strict text forms only: four decimal numbers for IPv4 (as inet_pton reads them), or
    /// IPv6 text per RFC 4291 §2.2 (with `::` and an optional trailing dotted quad; a `%zone` is dropped).
    /// URL hosts, which browsers and getaddrinfo read more loosely (`127.1`, `0x7f.1`, `2130706433`), go
    /// through `SourceHost` instead.
    package init?(_ text: String) {
        if let v4 = Self.parseDottedQuad(Substring(text)) {
            self = .v4(v4)
        } else if let v6 = Self.parseIPv6(Substring(text)) {
            self = .v6(v6)
        } else {
            return nil
        }
    }

    /// The address as inet_ntop writes it: dotted quad, or IPv6 with the longest run of zero groups as `::`.
    package var description: String {
        switch self {
        case let .v4(bits):
            return "\(bits >> 24).\((bits >> 16) & 0xFF).\((bits >> 8) & 0xFF).\(bits & 0xFF)"
        case let .v6(bits):
            let groups = (0..<8).map { UInt16(truncatingIfNeeded: bits >> (112 - 16 * $0)) }
            // The longest run of at least two zero groups becomes "::" (RFC 5952).
            var best = (start: -1, length: 0)
            var index = 0
            while index < 8 {
                guard groups[index] == 0 else { index += 1; continue }
                let start = index
                while index < 8, groups[index] == 0 { index += 1 }
                if index - start > best.length, index - start >= 2 { best = (start, index - start) }
            }
            func hex(_ range: Range<Int>) -> String {
                range.map { String(groups[$0], radix: 16) }.joined(separator: ":")
            }
            if best.start < 0 { return hex(0..<8) }
            return hex(0..<best.start) + "::" + hex((best.start + best.length)..<8)
        }
    }

    /// The IPv4 address an IPv6 address stands for, where it carries one that the network would reach:
    /// IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`),
    /// NAT64 (`64:ff9b::a.b.c.d`) and 6to4 (`2002:AABB:CCDD::`). Nil for IPv4 and other IPv6.
    package var embeddedIPv4: IPAddress? {
        guard case let .v6(bits) = self else { return nil }
        let low32 = UInt32(truncatingIfNeeded: bits)
        let high96 = bits >> 32
        if high96 == 0xFFFF || high96 == 0xFFFF_0000 || high96 == 0x0064_FF9B << 64 {
            return .v4(low32)
        }
        // ::a.b.c.d, except :: and ::1, which are IPv6's own unspecified and loopback addresses.
        if high96 == 0, low32 > 1 { return .v4(low32) }
        if bits >> 112 == 0x2002 { return .v4(UInt32(truncatingIfNeeded: bits >> 80)) }
        return nil
    }

    /// An IPv4-mapped address (`::ffff:a.b.c.d`) as the IPv4 address it is, which a connection reaches
    /// without needing IPv6; any other address unchanged.
    var unmapped: IPAddress {
        if case let .v6(bits) = self, bits >> 32 == 0xFFFF { return .v4(UInt32(truncatingIfNeeded: bits)) }
        return self
    }

    // MARK: - Parsing

    /// Exactly four decimal numbers 0...255 separated by dots, without leading zeros (inet_pton's form).
    static func parseDottedQuad(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCIIDigit),
                part.count == 1 || part.first != "0", let byte = UInt32(part), byte <= 255
            else { return nil }
            value = value << 8 | byte
        }
        return value
    }

    static func parseIPv6(_ input: Substring) -> UInt128? {
        var text = input
        if let zone = text.firstIndex(of: "%") {
            guard text.index(after: zone) < text.endIndex else { return nil }
            text = text[..<zone]
        }
        guard text.contains(":") else { return nil }
        var head: [UInt16] = []
        var tail: [UInt16] = []
        var sawDoubleColon = false
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        sawDoubleColon = halves.count == 2
        func groups(_ part: String, allowV4: Bool) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if allowV4, index == pieces.count - 1, piece.contains(".") {
                    guard let v4 = parseDottedQuad(piece) else { return nil }
                    result.append(UInt16(v4 >> 16))
                    result.append(UInt16(v4 & 0xFFFF))
                } else {
                    guard (1...4).contains(piece.count), piece.allSatisfy(\.isHexDigit),
                        let group = UInt16(piece, radix: 16)
                    else { return nil }
                    result.append(group)
                }
            }
            return result
        }
        if sawDoubleColon {
            guard let first = groups(halves[0], allowV4: false), let second = groups(halves[1], allowV4: true),
                first.count + second.count <= 7
            else { return nil }
            head = first
            tail = second
        } else {
            guard let all = groups(halves[0], allowV4: true), all.count == 8 else { return nil }
            head = all
        }
        let all = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        return all.reduce(UInt128(0)) { $0 << 16 | UInt128($1) }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
