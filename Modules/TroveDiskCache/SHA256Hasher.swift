import Crypto
import TroveCore

/// The default key hasher: lowercase hex of the SHA-256 of the key's UTF-8 bytes (64 characters).
public struct SHA256Hasher: KeyHasher {
    public let name = "sha256"

    public init() {}

    public func hash(_ key: String) -> String {
        HexEncoding.lowercase(SHA256.hash(data: Array(key.utf8)))
    }
}
