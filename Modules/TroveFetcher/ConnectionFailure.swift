import Foundation
import NIOCore
import TroveCore

/// Words a low-level connect failure the way a person can act on. NIO reports a refused connect or a DNS
/// failure inside its own error types (some from NIOPosix, which this module does not import), so the
/// description is what we can read.
enum ConnectionFailure {
    /// What was wrong when `error` is a failed check of the server's TLS certificate, else nil. NIOSSL's
    /// errors are read as text for the same reason as the others here.
    static func certificateProblem(_ error: any Error) -> String? {
        let text = "\(error)"
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            // BoringSSL's code alone; the rest of its text is a source location.
            return "CERTIFICATE_VERIFY_FAILED: not issued by a trusted CA, expired, or not yet valid"
        }
        if text.contains("failedToValidateHostname") || text.contains("serverHostnameImpossibleToMatch") {
            return TroveError.certificateNameMismatch
        }
        return nil
    }

    static func describe(_ error: any Error, url: URL) -> String {
        let target = "\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? "")"
        if let error = error as? IOError, error.errnoCode == ECONNREFUSED {
            return "connection refused by \(target); check that a server is listening there"
        }
        if let error = error as? ChannelError, error == .ioOnClosedChannel {
            return "the connection to \(target) closed before the request could be sent (a pooled connection "
                + "the server had dropped); retrying usually succeeds"
        }
        let text = "\(error)"
        if text.localizedCaseInsensitiveContains("refused") {
            return "connection refused by \(target); check that a server is listening there"
        }
        if text.contains("dnsAError") || text.contains("dnsAAAAError") || text.contains("unknown host") {
            return "could not resolve \(url.host ?? "?") (\(text)); check the host name and the network"
        }
        return text
    }
}
