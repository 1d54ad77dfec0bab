import Crypto
import Foundation
import TroveCore
import TroveSupport

/// The default key hasher: lowercase hex of the SHA-256 of the key's UTF-8 bytes (64 characters).
@usableFromInline package struct SHA256Hasher: KeyHasher {
    /// The registry name, "sha256".
    @usableFromInline package let name = "sha256"

    /// The hasher; it keeps no state.
    @usableFromInline package init() {}

    /// 64 lowercase hex characters: the SHA-256 of the key's UTF-8 bytes.
    @usableFromInline package func hash(_ key: String) -> String {
        var key = key
        return key.withUTF8 {
            SHA256.hash(data: UnsafeRawBufferPointer($0)).withUnsafeBytes { HexEncoding.lowercase($0) }
        }
    }
}
