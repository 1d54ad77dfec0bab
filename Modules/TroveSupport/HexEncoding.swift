/// Lowercase hexadecimal text for digests, the form disk-cache file names and key hashers use.
package enum HexEncoding {
    /// Two lowercase hex digits per byte, written straight into the string's storage (a name is
    /// made on every disk-cache lookup).
    package static func lowercase(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            var index = 0
            for byte in bytes {
                out[index] = digit(byte >> 4)
                out[index + 1] = digit(byte & 0x0F)
                index += 2
            }
            return index
        }
    }

    private static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
