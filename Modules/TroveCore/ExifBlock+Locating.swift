extension ExifBlock {
    /// The TIFF structure inside an EXIF payload as containers store it: from its byte-order mark, found
    /// at the start, after "Exif\0\0" (JPEG's identifier, which some writers copy), or after HEIF's 4-byte
    /// offset to the header. Nil when none of those holds a TIFF header.
    package static func tiff(inPayload payload: [UInt8]) -> [UInt8]? {
        func isHeader(at offset: Int) -> Bool {
            guard payload.count >= offset + 4 else { return false }
            let mark = payload[offset..<(offset + 4)]
            return mark.elementsEqual([0x49, 0x49, 42, 0]) || mark.elementsEqual([0x4D, 0x4D, 0, 42])
        }
        if isHeader(at: 0) { return payload }
        if payload.starts(with: Array("Exif".utf8) + [0, 0]), isHeader(at: 6) { return Array(payload.dropFirst(6)) }
        if payload.count >= 8 {
            let offset = Int(payload[0]) << 24 | Int(payload[1]) << 16 | Int(payload[2]) << 8 | Int(payload[3])
            if offset < payload.count - 4, isHeader(at: 4 + offset) { return Array(payload.dropFirst(4 + offset)) }
        }
        return nil
    }
}
