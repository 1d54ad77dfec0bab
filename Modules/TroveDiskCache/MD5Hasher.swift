import Crypto
import Foundation
import TroveCore
import TroveSupport

/// Lowercase hex of the MD5 of the key's UTF-8 bytes (32 characters). Shorter names than sha256; fine for
/// naming files because a collision can only cost a miss (every read checks the full key).
package struct MD5Hasher: KeyHasher {
    /// The registry name, "md5".
    package let name = "md5"

    /// The hasher; it keeps no state.
    package init() {}

    /// 32 lowercase hex characters: the MD5 of the key's UTF-8 bytes.
    package func hash(_ key: String) -> String {
        var key = key
        return key.withUTF8 {
            Insecure.MD5.hash(data: UnsafeRawBufferPointer($0)).withUnsafeBytes { HexEncoding.lowercase($0) }
        }
    }
}
