import Foundation

/// An encoded image format, by name: an open set. Trove names the formats it knows (`.png`, `.jpeg`, ...);
/// a plugin declares its own with a string literal (`"qoi"`). Which format some bytes are is decided by the
/// registered decoders (`PluginRegistry.decoder(for:)`), never by a file extension or Content-Type. As
/// `Codable` it is a single string, its name (the standard library's coding of a string raw value).
public struct ImageFormat: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The lowercase name, e.g. "webp".
    public let rawValue: String

    /// A format by name; names are case-insensitive and stored in lowercase.
    public init(rawValue: String) { self.rawValue = rawValue.lowercased() }
    /// A format by name, lowercased like `init(rawValue:)`: `let qoi: ImageFormat = "qoi"`.
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    /// The lowercase name, e.g. "png".
    public var description: String { rawValue }

    /// PNG; decoded and encoded by TroveCodec.
    public static let png: ImageFormat = "png"
    /// JPEG (file extension "jpg"); decoded and encoded by the TroveJPEG plugin.
    public static let jpeg: ImageFormat = "jpeg"
    /// GIF, still or animated; decoded by TroveCodec (Trove has no GIF encoder).
    public static let gif: ImageFormat = "gif"
    /// WebP, lossy or lossless, still or animated; decoded and encoded by the TroveWebP plugin.
    public static let webp: ImageFormat = "webp"
    /// AVIF (AV1 images in HEIF); decoded and encoded by the TroveAVIF plugin.
    public static let avif: ImageFormat = "avif"
    /// Windows bitmap; recognised by `wellKnown(sniffing:)` only (no built-in decoder).
    public static let bmp: ImageFormat = "bmp"
    /// HEIC (HEVC images in HEIF); recognised by `wellKnown(sniffing:)` only (no built-in decoder).
    public static let heic: ImageFormat = "heic"
    /// JPEG XL; recognised by `wellKnown(sniffing:)` only (no built-in decoder).
    public static let jxl: ImageFormat = "jxl"
    /// Pixels that were made in memory rather than decoded from bytes.
    public static let unknown: ImageFormat = "unknown"

    /// The media type a server sends for this format: the well-known ones by table, else `image/<name>`.
    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .jxl: "image/jxl"
        default: "image/\(rawValue)"
        }
    }

    /// The usual file extension, without the dot.
    package var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        default: rawValue
        }
    }

    /// The format a file extension or `--format` name means: "jpg" is `.jpeg`, "tif" is "tiff".
    package init(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "jpg", "jpe": self = .jpeg
        case "tif": self = "tiff"
        default: self.init(rawValue: fileExtension)
        }
    }

    /// The number of leading bytes decoders are shown to recognise their format.
    package static let sniffLength = 32

    /// A hint for messages and heuristics only: the well-known format whose signature these bytes start with,
    /// whether or not a decoder for it is registered. It never picks a decoder; the registry asks the decoders.
    package static func wellKnown(sniffing bytes: some Collection<UInt8>) -> ImageFormat? {
        let b = Array(bytes.prefix(sniffLength))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + magic.count && b[offset..<offset + magic.count].elementsEqual(magic)
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        // ISO-BMFF: a 'ftyp' box whose major brand names the format.
        if starts(Array("ftyp".utf8), at: 4) {
            if starts(Array("avif".utf8), at: 8) || starts(Array("avis".utf8), at: 8) { return .avif }
            if starts(Array("heic".utf8), at: 8) || starts(Array("heix".utf8), at: 8)
                || starts(Array("mif1".utf8), at: 8)
            {
                return .heic
            }
        }
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) { return .jxl }
        if starts(Array("BM".utf8)) && b.count >= 6 { return .bmp }
        return nil
    }
}
