/// IFD0 of an EXIF block, a TIFF structure (byte order, 42, the offset of IFD0): the few tags Trove reads,
/// and a writer for the ones it keeps. Anything malformed reads as absent: a bad EXIF block never makes a
/// good picture undecodable.
package struct ExifBlock: Sendable {
    /// EXIF Orientation, a SHORT.
    static let orientationTag = 0x0112
    /// EXIF Artist, ASCII.
    static let artistTag = 0x013B
    /// EXIF Copyright, ASCII.
    static let copyrightTag = 0x8298
    /// TIFF's ASCII, SHORT and LONG field types.
    static let asciiType = 2, shortType = 3, longType = 4

    private let bytes: [UInt8]
    private let littleEndian: Bool
    /// Tag → (type, count, offset of the 4-byte value field).
    private var entries: [Int: (type: Int, count: Int, field: Int)] = [:]

    /// The block over `tiff`, which starts at the TIFF header; nil when the header or IFD0 is malformed.
    package init?(tiff: some Collection<UInt8>) {
        bytes = Array(tiff)
        guard bytes.count >= 8 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        guard read(2, 2) == 42, let ifd = read(4, 4), let count = read(ifd, 2) else { return nil }
        for index in 0..<count {
            let entry = ifd + 2 + 12 * index
            guard let tag = read(entry, 2), let type = read(entry + 2, 2), let values = read(entry + 4, 4) else {
                break
            }
            entries[tag] = (type, values, entry + 8)
        }
    }

    /// The block that follows JPEG's and WebP's "Exif\0\0" identifier, when `payload` starts with it.
    package init?(exifPayload payload: some Collection<UInt8>) {
        guard payload.starts(with: Array("Exif".utf8) + [0, 0]) else { return nil }
        self.init(tiff: payload.dropFirst(6))
    }

    private func read(_ at: Int, _ length: Int) -> Int? {
        guard at >= 0, length > 0, at + length <= bytes.count else { return nil }
        let field = bytes[at..<at + length]
        return (littleEndian ? field.reversed() : Array(field)).reduce(0) { $0 << 8 | Int($1) }
    }

    /// The Orientation tag, when IFD0 has it with a value EXIF defines: as a SHORT, or as the LONG some writers
    /// store, which libexif (so libvips), exiftool and Pillow read too.
    package var orientation: ExifOrientation? {
        guard let entry = entries[Self.orientationTag] else { return nil }
        let width =
            switch entry.type {
            case Self.shortType: 2
            case Self.longType: 4
            default: 0
            }
        guard width > 0, let value = read(entry.field, width) else { return nil }
        return ExifOrientation(rawValue: value)
    }

    /// An ASCII tag's text, trailing NULs removed; nil when absent, empty or not ASCII-typed.
    func ascii(_ tag: Int) -> String? {
        guard let entry = entries[tag], entry.type == Self.asciiType, entry.count > 0 else { return nil }
        let start = entry.count <= 4 ? entry.field : read(entry.field, 4) ?? -1
        guard start >= 0, start + entry.count <= bytes.count else { return nil }
        var text = bytes[start..<start + entry.count]
        while text.last == 0 { text = text.dropLast() }
        return text.isEmpty ? nil : String(decoding: text, as: UTF8.self)
    }

    /// Copyright and Artist, when IFD0 has either.
    package var copyrightNotice: CopyrightNotice? {
        let notice = CopyrightNotice(copyright: ascii(Self.copyrightTag), artist: ascii(Self.artistTag))
        return notice.isEmpty ? nil : notice
    }

    /// A little-endian TIFF structure whose IFD0 holds `orientation` (unless `.up`) and `notice`'s tags, for an
    /// encoder to embed (PNG eXIf, WebP EXIF, AVIF and HEIC Exif items; JPEG's APP1 puts "Exif\0\0" before it).
    /// Nil when there is nothing to say.
    package static func tiff(for notice: CopyrightNotice?, orientation: ExifOrientation = .up) -> [UInt8]? {
        // (tag, type, count, value bytes), in ascending tag order as TIFF requires.
        var tags: [(Int, Int, Int, [UInt8])] = []
        if orientation != .up { tags.append((orientationTag, shortType, 1, [UInt8(orientation.rawValue), 0])) }
        for (tag, text) in [(artistTag, notice?.artist), (copyrightTag, notice?.copyright)] {
            guard let text else { continue }
            let bytes = Array(text.utf8) + [0]
            tags.append((tag, asciiType, bytes.count, bytes))
        }
        guard !tags.isEmpty else { return nil }
        func append(_ value: Int, _ length: Int, to out: inout [UInt8]) {
            for index in 0..<length { out.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
        }
        var out: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        append(tags.count, 2, to: &out)
        var dataOffset = 8 + 2 + 12 * tags.count + 4
        var data: [UInt8] = []
        for (tag, type, count, value) in tags {
            append(tag, 2, to: &out)
            append(type, 2, to: &out)
            append(count, 4, to: &out)
            if value.count <= 4 {
                out += value + [UInt8](repeating: 0, count: 4 - value.count)
            } else {
                append(dataOffset, 4, to: &out)
                data += value
                dataOffset += value.count
            }
        }
        append(0, 4, to: &out)
        return out + data
    }
}
