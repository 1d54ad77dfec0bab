import TroveCore

/// Finds the Orientation tag (0x0112) in IFD0 of an EXIF payload (a TIFF structure). Anything malformed
/// reads as `.up`: a bad EXIF block should not make a good picture undecodable.
enum ExifOrientationReader {
    static func orientation(in tiff: UnsafeRawBufferPointer) -> ExifOrientation {
        guard tiff.count >= 8 else { return .up }
        let littleEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return .up
        }
        func uint16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            return littleEndian ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
        }
        func uint32(_ at: Int) -> Int? {
            guard let first = uint16(at), let second = uint16(at + 2) else { return nil }
            return littleEndian ? first | second << 16 : first << 16 | second
        }
        guard uint16(2) == 42, let ifd = uint32(4), let count = uint16(ifd) else { return .up }
        for entry in 0..<count {
            let at = ifd + 2 + entry * 12
            guard let tag = uint16(at) else { return .up }
            // Orientation is a SHORT; its value sits in the first two bytes of the value field.
            if tag == 0x0112, uint16(at + 2) == 3, let value = uint16(at + 8) {
                return ExifOrientation(rawValue: value) ?? .up
            }
        }
        return .up
    }
}
