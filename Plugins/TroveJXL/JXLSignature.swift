import Foundation

/// Recognises JPEG XL by its first bytes: a bare codestream, or the ISO-BMFF container's signature box.
enum JXLSignature {
    /// A bare codestream opens with the marker FF 0A.
    static let codestream: [UInt8] = [0xFF, 0x0A]
    /// The container opens with a 12-byte box of type "JXL " holding 0D 0A 87 0A.
    static let container: [UInt8] = [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]

    /// Whether `header` (the first bytes of a file) starts either form.
    static func matches(_ header: Data) -> Bool {
        header.starts(with: codestream) || header.starts(with: container)
    }
}
