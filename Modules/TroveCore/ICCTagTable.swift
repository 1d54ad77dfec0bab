/// An ICC profile's tag table (ICC.1 §7.3): the count at byte 128, then 12 bytes a tag (signature, offset,
/// size, big-endian), read into where each tag's data lies. The one reader of it: `SRGBProfile` and the
/// server's profile name both look tags up here, so damaged bytes mean the same to both.
///
/// The rule for damage is the one LittleCMS applies when it opens a profile: a table that runs past the end
/// of the bytes is no table (no tags at all, as for a count of 0), and an entry whose data lies outside the
/// bytes is skipped. A signature listed twice keeps its first entry. Nothing read from the bytes can trap:
/// every offset and size is checked against the bytes before it is added to anything.
package struct ICCTagTable: Sendable, Equatable {
    /// The count follows the 128-byte header; the entries follow the count.
    static let countOffset = 128
    static let firstEntry = 132
    static let entrySize = 12

    /// Each signature with the byte range of its data in the profile.
    package let ranges: [String: Range<Int>]

    /// The tag table of `profile` (see the type for what damage gives).
    package init(_ profile: [UInt8]) {
        ranges = Self.read(profile)
    }

    /// The byte range of the data of the tag with this signature (e.g. `desc`, `rXYZ`), nil if there is none.
    package subscript(signature: String) -> Range<Int>? {
        ranges[signature]
    }

    /// How many distinct tags were read.
    package var count: Int { ranges.count }

    private static func read(_ bytes: [UInt8]) -> [String: Range<Int>] {
        guard let declared = uint32(bytes, at: countOffset) else { return [:] }
        // Compared as a count of entries, not bytes: 12 × a 32-bit count would overflow a 32-bit Int.
        let room = (bytes.count - firstEntry) / entrySize
        guard let count = Int(exactly: declared), count <= room else { return [:] }
        var ranges: [String: Range<Int>] = [:]
        for index in 0..<count {
            let entry = firstEntry + entrySize * index
            guard let offset = uint32(bytes, at: entry + 4).flatMap({ Int(exactly: $0) }),
                let size = uint32(bytes, at: entry + 8).flatMap({ Int(exactly: $0) }),
                offset <= bytes.count, size <= bytes.count - offset
            else { continue }
            let signature = String(decoding: bytes[entry..<entry + 4], as: UTF8.self)
            if ranges[signature] == nil { ranges[signature] = offset..<offset + size }
        }
        return ranges
    }

    private static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32? {
        guard offset >= 0, offset <= bytes.count - 4 else { return nil }
        return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
