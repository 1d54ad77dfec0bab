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
    /// all pass. Names are compared without case; IP literals as written in URLs (`127.0.0.1`, `::1`).
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
    public var isDefault: Bool { caBundle == nil && insecureHosts.isEmpty }

    /// Whether the certificate of `host` (a URL's host) is verified.
    public func verifiesCertificate(of host: String) -> Bool {
        insecureHosts.isEmpty || !insecureHosts.contains(Self.normalized(host))
    }

    /// Throws `invalidConfiguration` when `caBundle` is not a readable file holding a PEM certificate, so a
    /// typo fails when the pipeline is made rather than as a handshake error on the first https fetch.
    public func validate() throws {
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
        guard let text = String(data: contents, encoding: .utf8),
            text.contains("-----BEGIN CERTIFICATE-----")
        else {
            throw TroveError.invalidConfiguration(
                "tls.caBundle \(caBundle) holds no PEM certificate (no -----BEGIN CERTIFICATE----- line); "
                    + "give a PEM file of CA certificates")
        }
    }

    /// Lower case, without the brackets of an IPv6 literal, so `[::1]` and `::1` are one host.
    static func normalized(_ host: String) -> String {
        let lowered = host.lowercased()
        if lowered.hasPrefix("["), lowered.hasSuffix("]") { return String(lowered.dropFirst().dropLast()) }
        return lowered
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
