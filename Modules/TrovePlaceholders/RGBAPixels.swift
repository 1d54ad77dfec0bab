/// A checked view of straight-alpha RGBA8 rows in caller memory: the size is at least 1x1, rows are at least
/// `width * 4` bytes apart and the buffer holds every row, so the encoders can read any pixel without a bounds
/// trap or an overflowing offset.
struct RGBAPixels {
    let bytes: UnsafeRawBufferPointer
    let width: Int
    let height: Int
    let bytesPerRow: Int

    /// Validates the geometry; `bytesPerRow` nil means tightly packed rows.
    init(_ bytes: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int?) throws {
        guard width >= 1, height >= 1 else { throw PlaceholderError.invalidSize(width: width, height: height) }
        let (rowBytes, rowOverflow) = width.multipliedReportingOverflow(by: 4)
        guard !rowOverflow else { throw PlaceholderError.invalidSize(width: width, height: height) }
        let stride = bytesPerRow ?? rowBytes
        guard stride >= rowBytes else {
            throw PlaceholderError.invalidBytesPerRow(bytesPerRow: stride, width: width)
        }
        // The last row needs only its pixels, not a whole stride: a cropped view of a larger image ends there.
        let (before, beforeOverflow) = (height - 1).multipliedReportingOverflow(by: stride)
        let (needed, neededOverflow) = before.addingReportingOverflow(rowBytes)
        guard !beforeOverflow, !neededOverflow else {
            throw PlaceholderError.invalidSize(width: width, height: height)
        }
        guard bytes.count >= needed else { throw PlaceholderError.bufferTooSmall(needed: needed, actual: bytes.count) }
        self.bytes = bytes
        self.width = width
        self.height = height
        self.bytesPerRow = stride
    }

    /// Byte offset of pixel (x, y); its red, green, blue and alpha follow in that order.
    @inline(__always)
    func offset(x: Int, y: Int) -> Int {
        y &* bytesPerRow &+ x &* 4
    }
}
