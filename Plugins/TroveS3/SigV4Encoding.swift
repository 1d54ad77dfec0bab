/// The percent-encoding SigV4 and S3 agree on (RFC 3986): every byte of the UTF-8 form except the unreserved
/// characters `A-Z a-z 0-9 - . _ ~` becomes `%XX` with upper-case hex. Foundation's encoders keep other
/// characters (`+`, `!`, `$`, ...) that S3 would then sign differently, so this is written out.
enum SigV4Encoding {
    /// `text` percent-encoded; `/` is kept when `keepingSlashes` (an object key in a path), else encoded
    /// (query names and values). S3 encodes a key once: `%` in a key is sent as `%25`, never decoded first.
    static func encode(_ text: String, keepingSlashes: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) || (keepingSlashes && byte == UInt8(ascii: "/")) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Lower-case hex of `bytes`, as SigV4 writes hashes and signatures.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        for byte in bytes {
            out.append(lowerHexDigits[Int(byte >> 4)])
            out.append(lowerHexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let lowerHexDigits = Array("0123456789abcdef".utf8)
}
