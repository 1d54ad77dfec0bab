import Foundation

/// Recognises HEIC from the ISO-BMFF `ftyp` box that opens the file, leaving every AVIF to TroveAVIF.
enum HEIFSignature {
    /// Major brands of HEVC-coded HEIF: stills (`heic`, `heix` 10-bit, `heim`/`heis` multi-layer and
    /// scalable) and sequences (`hevc`, `hevx`).
    static let hevcBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx"]
    /// Generic HEIF brands: HEIC when no AVIF brand is listed beside them.
    static let genericBrands: Set<String> = ["mif1", "msf1"]
    /// The brands that make a generic HEIF file AVIF (what TroveAVIF's sniffer looks for).
    static let avifBrands: Set<String> = ["avif", "avis"]

    /// Whether `header` (the first bytes of a file) starts a HEIC. A generic major brand counts unless
    /// `avif` or `avis` is among the compatible brands in these bytes; TroveAVIF claims exactly those files
    /// (it looks at no more bytes than this does), so the two never claim the same file.
    static func matches(_ header: Data) -> Bool {
        let bytes = [UInt8](header.prefix(maxHeaderBytes))
        guard bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8) else { return false }
        let major = brand(bytes, at: 8)
        if hevcBrands.contains(major) { return true }
        guard genericBrands.contains(major) else { return false }
        // Compatible brands follow the minor version, up to the box's end (size 0: the end of the file).
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = boxSize == 0 ? bytes.count : min(boxSize, bytes.count)
        return !stride(from: 16, to: end - 3, by: 4).contains { avifBrands.contains(brand(bytes, at: $0)) }
    }

    /// Bytes looked at when more are given: as many as TroveAVIF's sniffer reads, so an `avif` brand it
    /// would see is never past this one's view.
    private static let maxHeaderBytes = 64

    private static func brand(_ bytes: [UInt8], at offset: Int) -> String {
        String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }
}
