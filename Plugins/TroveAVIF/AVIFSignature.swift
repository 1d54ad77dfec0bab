import Foundation

/// Recognises AVIF from the ISO-BMFF `ftyp` box that opens the file: its major brand, or its compatible
/// brands when the major brand is the generic HEIF one.
enum AVIFSignature {
    /// Major brands that alone make a file AVIF: a still image (`avif`) or an image sequence (`avis`).
    static let avifBrands: Set<String> = ["avif", "avis"]
    /// Generic HEIF brands (still, sequence) that are AVIF only when an AVIF brand is also listed: HEIC
    /// files use the same major brands with `heic` among the compatible ones.
    static let genericBrands: Set<String> = ["mif1", "msf1"]

    /// Whether `header` (the first bytes of a file, possibly fewer than the whole `ftyp` box) starts an AVIF.
    static func matches(_ header: Data) -> Bool {
        let bytes = [UInt8](header.prefix(maxHeaderBytes))
        guard bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8) else { return false }
        let major = brand(bytes, at: 8)
        if avifBrands.contains(major) { return true }
        guard genericBrands.contains(major) else { return false }
        // Box: size(4) 'ftyp'(4) major(4) minor version(4), then compatible brands up to the box's end.
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        // A size of 0 means the box runs to the end of the file.
        let end = boxSize == 0 ? bytes.count : min(boxSize, bytes.count)
        return stride(from: 16, to: end - 3, by: 4).contains { avifBrands.contains(brand(bytes, at: $0)) }
    }

    /// Bytes looked at when more are given. The registry shows `ImageFormat.sniffLength` (32): the box
    /// header and the first four compatible brands.
    private static let maxHeaderBytes = 64

    private static func brand(_ bytes: [UInt8], at offset: Int) -> String {
        String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }
}
