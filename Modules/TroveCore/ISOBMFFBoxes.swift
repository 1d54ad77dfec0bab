/// A walk over ISO base media file format boxes (AVIF and HEIC, the JPEG XL container): each box is a
/// 32-bit big-endian size, a four-letter type and a body; size 1 puts a 64-bit size after the type, size 0
/// runs to the end of the parent. Plugins read the few boxes libraries do not report (a declared size, an
/// EXIF box) without decoding anything.
package enum ISOBMFFBoxes {
    /// The boxes directly inside `range` of `bytes`, each as its type and body, in file order; the walk stops
    /// at a size that does not fit its parent.
    package static func children(
        in bytes: UnsafeRawBufferPointer, within range: Range<Int>
    ) -> [(type: String, body: Range<Int>)] {
        var boxes: [(type: String, body: Range<Int>)] = []
        var at = range.lowerBound
        while at + 8 <= range.upperBound {
            var size = bigEndian32(bytes, at: at)
            var header = 8
            if size == 1 {
                guard at + 16 <= range.upperBound else { break }
                let high = bigEndian32(bytes, at: at + 8), low = bigEndian32(bytes, at: at + 12)
                guard high < 1 << 31 else { break }
                size = high << 32 | low
                header = 16
            } else if size == 0 {
                size = range.upperBound - at
            }
            guard size >= header, size <= range.upperBound - at else { break }
            let type = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[(at + 4)..<(at + 8)]), as: UTF8.self)
            boxes.append((type, (at + header)..<(at + size)))
            at += size
        }
        return boxes
    }

    /// The body of the first box of `type` directly inside `range`.
    package static func firstChild(
        _ type: String, in bytes: UnsafeRawBufferPointer, within range: Range<Int>
    ) -> Range<Int>? {
        children(in: bytes, within: range).first { $0.type == type }?.body
    }

    /// The unsigned big-endian 32-bit number at `index`.
    package static func bigEndian32(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
    }
}
