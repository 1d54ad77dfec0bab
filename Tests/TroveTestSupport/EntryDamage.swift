/// Ways a disk cache entry file can be damaged (offsets from the entry format in DESIGN.md §5), for the
/// disk cache's and the CLI's corruption tests.
public enum Damage: String, CaseIterable, Sendable {
    case flipPayloadByte, truncate, empty, flipKeyByte, flipMagic, appendGarbage, wrongVersion

    /// Damages the bytes of an entry file in this way.
    public func apply(to bytes: inout [UInt8]) {
        switch self {
        case .flipPayloadByte: bytes[bytes.count - 1] ^= 0x40
        case .truncate: bytes.removeLast(10)
        case .empty: bytes.removeAll()
        case .flipKeyByte: bytes[52] ^= 0x01  // the key's first byte: 48-byte fixed part, then a 4-byte length
        case .flipMagic: bytes[0] = UInt8(ascii: "X")
        case .appendGarbage: bytes.append(contentsOf: [1, 2, 3])
        case .wrongVersion: bytes[4] = 99
        }
    }
}
