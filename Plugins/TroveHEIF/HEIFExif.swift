import CHEIF
import TroveCore

/// The EXIF Orientation tag of a HEIF image's 'Exif' item, which HEIF defines as informative only: the
/// 'irot' and 'imir' properties are what turn the picture, and libheif applies those.
enum HEIFExif {
    /// The orientation in the first 'Exif' block attached to `handle`; nil when there is none or it is
    /// malformed (a bad EXIF block never makes a good picture undecodable).
    static func orientation(of handle: OpaquePointer) -> ExifOrientation? {
        guard heif_image_handle_get_number_of_metadata_blocks(handle, "Exif") > 0 else { return nil }
        var id: heif_item_id = 0
        guard heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1 else { return nil }
        let size = heif_image_handle_get_metadata_size(handle, id)
        // The block starts with a 4-byte offset to the TIFF header; Orientation lives in the first 64 KiB.
        guard size >= 12, size <= 16 << 20 else { return nil }
        var block = [UInt8](repeating: 0, count: size)
        guard
            block.withUnsafeMutableBytes({ heif_image_handle_get_metadata(handle, id, $0.baseAddress) }).code
                == heif_error_Ok
        else { return nil }
        let offset = Int(block[0]) << 24 | Int(block[1]) << 16 | Int(block[2]) << 8 | Int(block[3])
        guard offset >= 0, offset < size - 4 else { return nil }
        return orientation(tiff: block[(4 + offset)...])
    }

    /// Tag 0x0112 (a SHORT) among IFD0's entries of a TIFF structure.
    static func orientation(tiff: ArraySlice<UInt8>) -> ExifOrientation? {
        let bytes = Array(tiff)
        guard bytes.count >= 8 else { return nil }
        let little: Bool
        if bytes[0] == 0x49 && bytes[1] == 0x49 {
            little = true
        } else if bytes[0] == 0x4D && bytes[1] == 0x4D {
            little = false
        } else {
            return nil
        }
        func read(_ at: Int, _ length: Int) -> Int? {
            guard at >= 0, at + length <= bytes.count else { return nil }
            let field = bytes[at..<at + length]
            return (little ? field.reversed() : Array(field)).reduce(0) { $0 << 8 | Int($1) }
        }
        guard read(2, 2) == 42, let ifd = read(4, 4), let entries = read(ifd, 2) else { return nil }
        for index in 0..<entries {
            let entry = ifd + 2 + 12 * index
            guard let tag = read(entry, 2) else { return nil }
            if tag == 0x0112 {
                guard read(entry + 2, 2) == 3, let value = read(entry + 8, 2) else { return nil }
                return ExifOrientation(rawValue: value)
            }
        }
        return nil
    }
}
