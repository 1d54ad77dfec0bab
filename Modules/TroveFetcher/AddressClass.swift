/// What kind of network an address belongs to, for the SSRF rules. IPv6 addresses that carry an IPv4
/// address (`::ffff:127.0.0.1`, NAT64, 6to4) are classed as that IPv4 address.
package enum AddressClass: String, Sendable, Hashable, CaseIterable {
    /// Reachable on the internet: the only class allowed by default.
    case `public`
    /// This machine: 127.0.0.0/8, ::1.
    case loopback
    /// Internal networks: 10/8, 172.16/12, 192.168/16, 100.64/10 (carrier-grade NAT), 198.18/15
    /// (benchmarking), fc00::/7 (unique local), fec0::/10 (site-local), 64:ff9b:1::/48 (local NAT64).
    case `private`
    /// The local link, including the cloud metadata service at 169.254.169.254: 169.254/16, fe80::/10.
    case linkLocal = "link-local"
    /// 224/4, ff00::/8: never a source.
    case multicast
    /// 0.0.0.0/8, ::: Linux connects these to the machine itself; never a source.
    case unspecified
    /// Broadcast, 240/4, documentation and protocol-assignment ranges, discard-only: never a source.
    case reserved
}

extension IPAddress {
    /// The class of this address, judged on the IPv4 address an IPv6 one carries, if any.
    package var addressClass: AddressClass {
        if let v4 = embeddedIPv4 { return v4.addressClass }
        switch self {
        case let .v4(bits):
            func within(_ network: UInt32, _ prefix: UInt32) -> Bool {
                bits >> (32 - prefix) == network >> (32 - prefix)
            }
            if within(0x0000_0000, 8) { return .unspecified }
            if within(0x7F00_0000, 8) { return .loopback }
            if within(0xA9FE_0000, 16) { return .linkLocal }
            if within(0x0A00_0000, 8) || within(0xAC10_0000, 12) || within(0xC0A8_0000, 16)
                || within(0x6440_0000, 10) || within(0xC612_0000, 15)
            {
                return .private
            }
            if within(0xE000_0000, 4) { return .multicast }
            // 240/4 holds 255.255.255.255; 192.0.0/24 is for protocol assignments; then TEST-NET-1, -2, -3.
            if within(0xF000_0000, 4) || within(0xC000_0000, 24) || within(0xC000_0200, 24)
                || within(0xC633_6400, 24) || within(0xCB00_7100, 24)
            {
                return .reserved
            }
            return .public
        case let .v6(bits):
            func within(_ network: UInt128, _ prefix: UInt128) -> Bool {
                bits >> (128 - prefix) == network >> (128 - prefix)
            }
            if bits == 0 { return .unspecified }
            if bits == 1 { return .loopback }
            if within(0xFE80 << 112, 10) { return .linkLocal }
            if within(0xFC00 << 112, 7) || within(0xFEC0 << 112, 10) || within(0x0064_FF9B_0001 << 80, 48) {
                return .private
            }
            if within(0xFF00 << 112, 8) { return .multicast }
            // 100::/64 discards; 2001:db8::/32 is for documentation; the rest of ::/8 is unassigned.
            if within(0x0100 << 112, 64) || within(0x2001_0DB8 << 96, 32) || within(0, 8) { return .reserved }
            return .public
        }
    }
}
