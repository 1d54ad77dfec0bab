/// Big-endian fields of a box body, read in order; nil past its end.
struct BoxReader {
    private let bytes: UnsafeRawBufferPointer
    private var at: Int
    private let end: Int

    init(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) {
        self.bytes = bytes
        at = range.lowerBound
        end = range.upperBound
    }

    /// What is left.
    var rest: Range<Int> { at..<end }

    /// The next `count` bytes (0 to 8) as an unsigned number; nil past the end, or over 2^48 (no offset or
    /// length in a file is, and sums of a few such stay far from overflowing).
    mutating func int(_ count: Int) -> Int? {
        guard count >= 0, count <= 8, end - at >= count else { return nil }
        var value: UInt64 = 0
        for byte in bytes[at..<at + count] { value = value << 8 | UInt64(byte) }
        at += count
        return value <= 1 << 48 ? Int(value) : nil
    }

    /// Skips `count` bytes; false past the end.
    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, end - at >= count else { return false }
        at += count
        return true
    }

    /// A four-character code.
    mutating func fourCC() -> String? {
        guard end - at >= 4 else { return nil }
        defer { at += 4 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<at + 4]), as: UTF8.self)
    }
}
