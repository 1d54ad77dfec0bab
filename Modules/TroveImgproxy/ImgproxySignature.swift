import Crypto
import Foundation

/// imgproxy's URL signature: `base64url-no-padding(HMAC-SHA256(key, salt + path))`, where `path` is the part
/// of the URL path after the signature segment, starting with its `/`.
///
/// Several key/salt pairs may be active at once (key rotation): a signature made with any of them passes.
/// With no pair configured, signing is off and any signature segment (`_`, `insecure`, ...) passes.
public struct ImgproxySignature: Sendable {
    /// One key and its salt, as bytes.
    package struct KeyPair: Sendable, Equatable {
        /// The HMAC key.
        package let key: [UInt8]
        /// Bytes put before the path in the signed message.
        package let salt: [UInt8]

        /// A pair from bytes.
        package init(key: [UInt8], salt: [UInt8]) {
            self.key = key
            self.salt = salt
        }

        /// A pair from hex text (`TROVE_KEY` / `TROVE_SALT`); throws naming which one is not hex, or empty.
        package init(hexKey: String, hexSalt: String) throws(ImgproxyConfigurationError) {
            guard let key = Hex.decode(hexKey), !key.isEmpty else {
                throw ImgproxyConfigurationError(
                    "the signing key is not hex: give an even number of hex digits (0-9, a-f), e.g. from "
                        + "`openssl rand -hex 32`")
            }
            guard let salt = Hex.decode(hexSalt) else {
                throw ImgproxyConfigurationError(
                    "the signing salt is not hex: give an even number of hex digits (0-9, a-f), e.g. from "
                        + "`openssl rand -hex 16`")
            }
            self.init(key: key, salt: salt)
        }
    }

    /// The active pairs; the first one signs.
    package let pairs: [KeyPair]
    /// Bytes of the HMAC a signature carries: 32, or fewer for signatures truncated to that many bytes
    /// (imgproxy's `IMGPROXY_SIGNATURE_SIZE`).
    package let size: Int

    /// Signing with `pairs` (none: signing off) and signatures of `size` bytes, 1...32.
    package init(pairs: [KeyPair], size: Int = SHA256.byteCount) {
        self.pairs = pairs
        self.size = min(max(size, 1), SHA256.byteCount)
    }

    /// Pairs from hex keys and salts, matched by position (as imgproxy's `IMGPROXY_KEYS` / `IMGPROXY_SALTS`).
    /// Throws when the counts differ or a value is not hex.
    public init(hexKeys: [String], hexSalts: [String], size: Int = SHA256.byteCount) throws(ImgproxyConfigurationError)
    {
        guard hexKeys.count == hexSalts.count else {
            throw ImgproxyConfigurationError(
                "\(hexKeys.count) signing keys but \(hexSalts.count) salts: give one salt for each key, in order")
        }
        var pairs = [KeyPair]()
        for (key, salt) in zip(hexKeys, hexSalts) {
            pairs.append(try KeyPair(hexKey: key, hexSalt: salt))
        }
        self.init(pairs: pairs, size: size)
    }

    /// Signing off: every signature segment passes.
    package static let disabled = ImgproxySignature(pairs: [])

    /// Whether URLs must carry a valid signature (a key is configured).
    package var isRequired: Bool { !pairs.isEmpty }

    /// Whether `signature` (the first path segment) signs `path` (everything after it, from its leading `/`)
    /// under any configured pair; always true when signing is off. Only the canonical spelling passes
    /// (base64url without padding and with no stray trailing bits), as imgproxy's check, so one signed URL has
    /// one path and one result-cache key. Runs in time independent of where the signature differs, and
    /// checks every pair.
    package func verify(signature: some StringProtocol, path: some StringProtocol) -> Bool {
        guard isRequired else { return true }
        guard let given = Base64URL.decodeCanonical(signature), given.count == size else { return false }
        var matched = false
        for pair in pairs {
            let expected = Array(Self.digest(pair, path: path).prefix(size))
            matched = Self.constantTimeEqual(expected, given) || matched
        }
        return matched
    }

    /// The signature segment for `path` under the first pair (for tests and URL-building tools); "insecure"
    /// when signing is off.
    public func sign(path: some StringProtocol) -> String {
        guard let pair = pairs.first else { return "insecure" }
        return Base64URL.encode(Array(Self.digest(pair, path: path).prefix(size)))
    }

    private static func digest(_ pair: KeyPair, path: some StringProtocol) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: pair.key))
        hmac.update(data: pair.salt)
        hmac.update(data: Array(path.utf8))
        return Array(hmac.finalize())
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
