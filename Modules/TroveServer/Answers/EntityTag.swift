import Crypto
import Foundation

/// Strong entity tags for results, and the `If-None-Match` test (RFC 9110 §13.1.2).
enum EntityTag {
    /// `"` + the first 128 bits of the SHA-256 of the bytes, in hex + `"`: equal bytes, equal tag, on any
    /// server of a fleet and across restarts.
    static func strong(for bytes: some DataProtocol) -> String {
        let digest = SHA256.hash(data: bytes)
        var text = "\""
        text.reserveCapacity(34)
        for byte in digest.prefix(16) {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
        text.append("\"")
        return text
    }

    private static let hexDigits = Array("0123456789abcdef")

    /// Whether an `If-None-Match` value names `tag` (a list, each strong or `W/`, compared weakly as the RFC
    /// says for this header) or is `*` (any current representation).
    static func ifNoneMatch(_ header: String, matches tag: String) -> Bool {
        for candidate in header.split(separator: ",") {
            var item = candidate.trimmingCharacters(in: .whitespaces)[...]
            if item == "*" { return true }
            if item.hasPrefix("W/") { item = item.dropFirst(2) }
            if item == tag { return true }
        }
        return false
    }
}
