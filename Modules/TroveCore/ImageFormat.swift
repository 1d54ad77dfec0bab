import Foundation

/// An encoded image format, identified by its magic bytes (never by file extension or Content-Type).
public enum ImageFormat: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case png, jpeg, gif, webp, bmp, unknown

    public var description: String { rawValue }

    /// The number of leading bytes `init(sniffing:)` needs to recognise every known format.
    public static let sniffLength = 12

    /// Identifies the format from the first bytes of a file.
    public init(sniffing bytes: some Collection<UInt8>) {
        let b = Array(bytes.prefix(Self.sniffLength))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + magic.count && Array(b[offset..<offset + magic.count]) == magic
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            self = .gif
        } else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts(Array("BM".utf8)) && b.count >= 6 {
            self = .bmp
        } else {
            self = .unknown
        }
    }
}
