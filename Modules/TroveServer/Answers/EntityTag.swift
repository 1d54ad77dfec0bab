import Crypto
import Foundation

/// Strong entity tags for results; `HTTPConditions` tests an `If-None-Match` against them.
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
}
