/// Turns a host name into every address it stands for. The guarded fetcher asks one for each hop, checks
/// the answers against its `AddressPolicy`, and connects to a checked address only. Tests inject their
/// own, mapping made-up names onto loopback or onto addresses that must be refused, so no test sends
/// traffic beyond loopback.
package protocol HostResolver: Sendable {
    /// All addresses of `host` (a lowercase DNS name without trailing dot), in the order to try them.
    /// Throws when the name does not resolve.
    func addresses(of host: String) async throws -> [IPAddress]
}
