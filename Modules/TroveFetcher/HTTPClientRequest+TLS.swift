import AsyncHTTPClient
import TroveCore

extension HTTPClient.Request {
    /// Applies `options` to this request when it is https and they differ from the defaults: the CA bundle
    /// as its trust roots, and no certificate check when its host is one of the insecure ones. AsyncHTTPClient
    /// keeps a pool of connections per TLS configuration, so connections made under one set of options are
    /// never reused under another.
    mutating func apply(_ options: TLSOptions) {
        guard !options.isDefault, url.scheme?.lowercased() == "https" else { return }
        // Reached through AsyncHTTPClient's own property and its type's members, so this module needs no
        // dependency of its own on swift-nio-ssl.
        var tls = tlsConfiguration ?? .makeClientConfiguration()
        if let caBundle = options.caBundle { tls.trustRoots = .file(caBundle) }
        if !options.verifiesCertificate(of: host) { tls.certificateVerification = .none }
        tlsConfiguration = tls
    }
}
