/// ImageMagick's way of keeping an EXIF block in a PNG, from before the eXIf chunk: a text chunk whose keyword
/// is "Raw profile type exif" (older ImageMagick: "Raw profile type APP1"), holding a newline, the profile's
/// name, a newline, its length in decimal, a newline, then its bytes in hex, in lines. Pillow reads the first
/// keyword as the file's EXIF and exiftool both (Pillow's `exif_imagemagick_orientation.png` is such a file);
/// browsers and libvips read neither.
enum PNGRawProfile {
    static let keywords = ["Raw profile type exif", "Raw profile type APP1"]
    /// Longer profiles are left out. EXIF comes from a JPEG's APP1 segment, at most 64 KiB, or from a camera's
    /// raw file, whose maker notes can take a few hundred.
    static let maxProfileBytes = 256 << 10
    /// The most text a profile of `maxProfileBytes` takes: two hex digits a byte, a newline every few dozen,
    /// and the name and length before them. A compressed text is not inflated past this.
    static let maxTextBytes = maxProfileBytes * 2 + maxProfileBytes / 8 + 64

    /// The longest chunk data that can hold a profile of `maxProfileBytes`: its text, uncompressed, after the
    /// keyword and an iTXt's language tag and translated keyword. Longer chunks are not read.
    static let maxChunkBytes = maxTextBytes + 1024
    /// Each keyword and its NUL, as a text chunk's data starts.
    private static let keywordPrefixes = keywords.map { Array($0.utf8) + [0] }

    /// Which of `keywords` a text chunk's data starts with (an index into them), if any.
    static func keyword(of data: UnsafeRawBufferPointer) -> Int? {
        keywordPrefixes.firstIndex { data.starts(with: $0) }
    }

    /// The EXIF payload (what an eXIf chunk would hold, "Exif\0\0" and all when the writer kept it) in the text
    /// chunk of type `type` with data `data`, whose keyword is `keywords[keyword]` (`keyword(of:)`), or nil when
    /// its text is malformed.
    static func exif(inChunk type: UInt32, _ data: UnsafeRawBufferPointer, keyword: Int) -> [UInt8]? {
        PNGTextChunks.text(ofChunk: type, data, keyword: keywords[keyword], limit: maxTextBytes).flatMap(profile(in:))
    }

    /// The bytes the text spells out: the name line, the length, then that many bytes as hex digits, with
    /// any whitespace between them.
    static func profile(in text: [UInt8]) -> [UInt8]? {
        var index = text.startIndex
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        func skipSpaces() { while index < text.endIndex, isSpace(text[index]) { index += 1 } }
        skipSpaces()
        // The profile's name, to the end of its line.
        while index < text.endIndex, text[index] != 0x0A { index += 1 }
        skipSpaces()
        var length = 0
        var digits = 0
        while index < text.endIndex, let digit = decimal(text[index]) {
            length = length * 10 + digit
            digits += 1
            guard length <= maxProfileBytes else { return nil }
            index += 1
        }
        guard digits > 0, length > 0 else { return nil }
        var bytes: [UInt8] = []
        // What the text can still hold, not what it claims: a short text may claim the most.
        bytes.reserveCapacity(min(length, (text.endIndex - index) / 2))
        var high: UInt8?
        while bytes.count < length, index < text.endIndex {
            let byte = text[index]
            index += 1
            if isSpace(byte) { continue }
            guard let nibble = hex(byte) else { return nil }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes.count == length ? bytes : nil
    }

    private static func decimal(_ byte: UInt8) -> Int? {
        (0x30...0x39).contains(byte) ? Int(byte - 0x30) : nil
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x61...0x66: byte - 0x61 + 10
        case 0x41...0x46: byte - 0x41 + 10
        default: nil
        }
    }
}
