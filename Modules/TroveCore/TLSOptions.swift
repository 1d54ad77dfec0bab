import Foundation

/// How https fetches check the server's certificate. By default against the system's trust store, with
/// the host name checked; `caBundle` trusts the certificate authorities of one PEM file instead (an
/// internal CA, a test CA), and `insecureHosts` lists hosts whose certificates are accepted unchecked
/// (a development server's self-signed one). The HTTP fetchers apply it per hop, so a redirect to
/// another host is checked by that host's rule.
public struct TLSOptions: Sendable, Hashable, Codable {
    /// A PEM file of CA certificates trusted in place of the system's, as curl's `--cacert`; nil for the
    /// system's trust store.
    public var caBundle: String?
    /// Hosts whose certificates are not verified at all: expired, self-signed or issued for another name
    /// all pass. Bare hosts, no scheme or port: names are compared without case or a trailing dot, IP
    /// literals as written in URLs (`127.0.0.1`, `::1`).
    /// Anyone on the path to such a host can read and change its responses, so the pipelines log each one
    /// at warning when they start.
    public var insecureHosts: Set<String> {
        didSet { insecureHosts = Set(insecureHosts.map(Self.normalized)) }
    }

    /// The system's trust store, every host verified, unless given.
    public init(caBundle: String? = nil, insecureHosts: Set<String> = []) {
        self.caBundle = caBundle
        self.insecureHosts = Set(insecureHosts.map(Self.normalized))
    }

    /// True when nothing differs from the system's default checks.
    package var isDefault: Bool { caBundle == nil && insecureHosts.isEmpty }

    /// Whether the certificate of `host` (a URL's host) is verified.
    package func verifiesCertificate(of host: String) -> Bool {
        insecureHosts.isEmpty || !insecureHosts.contains(Self.normalized(host))
    }

    /// Throws `invalidConfiguration` when `caBundle` is not a readable file holding a PEM certificate, or an
    /// insecure host is not a bare host (a URL, a port, spaces), so a typo fails when the pipeline is made
    /// rather than as a handshake error on the first https fetch, or as a host that is never matched.
    package func validate() throws {
        for host in insecureHosts.sorted() {
            if let problem = Self.problem(ofHost: host) {
                throw TroveError.invalidConfiguration(
                    "tls.insecureHosts entry '\(host)' \(problem); give a bare host name or IP address, such as "
                        + "dev.local or 10.0.0.5")
            }
        }
        guard let caBundle else { return }
        guard FileManager.default.fileExists(atPath: caBundle) else {
            throw TroveError.invalidConfiguration(
                "tls.caBundle \(caBundle) does not exist; give a PEM file of CA certificates")
        }
        let contents: Data
        do {
            contents = try Data(contentsOf: URL(fileURLWithPath: caBundle))
        } catch {
            throw TroveError.invalidConfiguration(
                "tls.caBundle \(caBundle) cannot be read (\(error.localizedDescription)); "
                    + "give a readable PEM file of CA certificates")
        }
        // The raw bytes: a bundle's comments need not be UTF-8.
        guard contents.range(of: Data("-----BEGIN CERTIFICATE-----".utf8)) != nil else {
            throw TroveError.invalidConfiguration(
                "tls.caBundle \(caBundle) holds no PEM certificate (no -----BEGIN CERTIFICATE----- line); "
                    + "give a PEM file of CA certificates")
        }
    }

    /// Lower case, without the brackets of an IPv6 literal or a name's trailing dot, so `[::1]` and `::1`,
    /// `Dev.Local.` and `dev.local` are one host.
    static func normalized(_ host: String) -> String {
        var host = Substring(host.lowercased())
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        if host.hasSuffix("."), host.count > 1 { host = host.dropLast() }
        return String(host)
    }

    /// Why `host` (normalized) is not a bare host that a URL's host could equal; nil when it is one.
    static func problem(ofHost host: String) -> String? {
        if host.isEmpty { return "is empty" }
        if host.contains(where: \.isWhitespace) { return "has spaces in it" }
        if host.contains("/") { return "is a URL or a path, not a host" }
        if host.contains("*") { return "has a wildcard; list each host" }
        // A bracketed IPv6 literal followed by a port, or one colon (an IPv6 literal has two or more).
        if host.contains("]:") || host.filter({ $0 == ":" }).count == 1 {
            return "has a port; certificates are checked per host"
        }
        return nil
    }

    private enum CodingKeys: String, CodingKey {
        case caBundle, insecureHosts
    }

    /// Reads `{"caBundle": "/etc/ssl/ours.pem", "insecureHosts": ["dev.local"]}`; either key may be left out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            caBundle: try container.decodeIfPresent(String.self, forKey: .caBundle),
            insecureHosts: Set(try container.decodeIfPresent([String].self, forKey: .insecureHosts) ?? []))
    }

    /// Writes both keys, the hosts sorted so the same options always give the same JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(caBundle, forKey: .caBundle)
        try container.encode(insecureHosts.sorted(), forKey: .insecureHosts)
    }
}
