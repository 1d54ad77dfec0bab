/// Which addresses a fetch of someone else's URL may connect to. Public addresses always; loopback,
/// private and link-local ones only when allowed (as imgproxy's `ALLOW_LOOPBACK_SOURCE_ADDRESSES`,
/// `ALLOW_PRIVATE_SOURCE_ADDRESSES` and `ALLOW_LINK_LOCAL_SOURCE_ADDRESSES`); multicast, unspecified and
/// reserved addresses never.
package struct AddressPolicy: Sendable, Hashable {
    /// 127/8 and ::1 (and `localhost`). Local tests need this.
    package var allowLoopback: Bool
    /// 10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7 and the other internal ranges of `AddressClass.private`.
    package var allowPrivate: Bool
    /// 169.254/16 (with the cloud metadata service) and fe80::/10; a separate switch, off even when
    /// private addresses are allowed, as in imgproxy.
    package var allowLinkLocal: Bool

    /// Public addresses only: the safe default for a server on the open internet.
    package init(allowLoopback: Bool = false, allowPrivate: Bool = false, allowLinkLocal: Bool = false) {
        self.allowLoopback = allowLoopback
        self.allowPrivate = allowPrivate
        self.allowLinkLocal = allowLinkLocal
    }

    /// Whether a connection to `address` is allowed.
    package func permits(_ address: IPAddress) -> Bool { refusal(of: address) == nil }

    /// Why `address` is refused, naming the rule and the switch that lifts it, or nil when it is allowed.
    package func refusal(of address: IPAddress) -> String? {
        let kind = address.addressClass
        switch kind {
        case .public: return nil
        case .loopback where allowLoopback, .private where allowPrivate, .linkLocal where allowLinkLocal: return nil
        case .loopback:
            return "\(address) is a loopback address, and loopback sources are not allowed (allowLoopback, "
                + "--allow-loopback-sources)"
        case .private:
            return "\(address) is a private address, and private sources are not allowed (allowPrivate, "
                + "--allow-private-sources)"
        case .linkLocal:
            return "\(address) is a link-local address, and link-local sources are not allowed (allowLinkLocal)"
        case .multicast, .unspecified, .reserved:
            return "\(address) is a \(kind.rawValue) address, which is never allowed as a source"
        }
    }
}
