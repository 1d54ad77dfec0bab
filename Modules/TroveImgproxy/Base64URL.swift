import Foundation

/// URL-safe Base64 (RFC 4648 section 5), as imgproxy uses for signatures and encoded sources.
enum Base64URL {
    /// Without padding.
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Accepts text with or without `=` padding; nil for any character outside the URL-safe alphabet.
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var standard = ""
        standard.reserveCapacity(text.utf8.count + 3)
        for character in text.unicodeScalars {
            switch character {
            case "-": standard.append("+")
            case "_": standard.append("/")
            case "a"..."z", "A"..."Z", "0"..."9", "=": standard.unicodeScalars.append(character)
            default: return nil
            }
        }
        let unpadded = standard.prefix { $0 != "=" }
        guard !unpadded.isEmpty, unpadded.count % 4 != 1,
            standard.dropFirst(unpadded.count).allSatisfy({ $0 == "=" })
        else { return nil }
        let padded = String(unpadded) + String(repeating: "=", count: (4 - unpadded.count % 4) % 4)
        return Data(base64Encoded: padded).map(Array.init)
    }

    /// Only the one text `encode` writes for the bytes: no `=` padding, and no bits set past the last byte
    /// (imgproxy's signature check refuses both), so one signature has one spelling. Nil otherwise.
    static func decodeCanonical(_ text: some StringProtocol) -> [UInt8]? {
        guard !text.utf8.contains(UInt8(ascii: "=")), let bytes = decode(text),
            encode(bytes).utf8.elementsEqual(text.utf8)
        else { return nil }
        return bytes
    }
}
