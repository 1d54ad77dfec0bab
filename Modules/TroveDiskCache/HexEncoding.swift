/// Lowercase hexadecimal text for digests, the form file names use.
enum HexEncoding {
    private static let digits = Array("0123456789abcdef".utf8)

    static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
