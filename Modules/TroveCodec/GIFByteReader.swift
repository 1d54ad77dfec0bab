/// Bounds-checked reading of a GIF file: every read returns nil instead of running past the end.
struct GIFByteReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint16() -> Int? {
        guard let value = uint16(at: offset) else { return nil }
        offset += 2
        return value
    }

    mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count <= bytes.count - offset else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    func byte(at index: Int) -> UInt8? { index >= 0 && index < bytes.count ? bytes[index] : nil }

    /// A little-endian 16-bit value.
    func uint16(at index: Int) -> Int? {
        guard let low = byte(at: index), let high = byte(at: index + 1) else { return nil }
        return Int(low) | Int(high) << 8
    }

    /// Skips a color table of 2^(sizeBits+1) RGB entries and returns its range.
    mutating func palette(sizeBits: UInt8, owner: String) throws -> Range<Int> {
        let count = 3 << (Int(sizeBits) + 1)
        guard count <= bytes.count - offset else {
            throw GIFEarlyEnd("the file ends inside the \(owner) (it is truncated)")
        }
        defer { offset += count }
        return offset..<offset + count
    }

    /// Reads a chain of length-prefixed sub-blocks up to its zero terminator and returns their ranges.
    mutating func subBlocks(owner: String) throws -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        while true {
            guard let length = byte() else {
                throw GIFEarlyEnd("the file ends inside the \(owner) (it is truncated)")
            }
            if length == 0 { return ranges }
            guard Int(length) <= bytes.count - offset else {
                throw GIFEarlyEnd("the file ends inside the \(owner) (it is truncated)")
            }
            ranges.append(offset..<offset + Int(length))
            offset += Int(length)
        }
    }

    /// The image data's sub-blocks up to their zero terminator, and whether it was reached: when the file
    /// ends first, the blocks it holds (the last one cut to what is there).
    mutating func dataSubBlocks() -> (ranges: [Range<Int>], complete: Bool) {
        var ranges: [Range<Int>] = []
        while let length = byte() {
            if length == 0 { return (ranges, true) }
            let end = min(offset + Int(length), bytes.count)
            if end > offset { ranges.append(offset..<end) }
            offset = end
        }
        return (ranges, false)
    }
}
