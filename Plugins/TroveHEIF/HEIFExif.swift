import CHEIF
import TroveCore

/// The EXIF Orientation tag of a HEIF image's 'Exif' item, which HEIF defines as informative only: the
/// 'irot' and 'imir' properties are what turn the picture, and libheif applies those.
enum HEIFExif {
    /// The orientation in the first 'Exif' block attached to `handle`; nil when there is none or it is
    /// malformed (a bad EXIF block never makes a good picture undecodable).
    static func orientation(of handle: OpaquePointer) -> ExifOrientation? {
        tiff(of: handle).flatMap { ExifBlock(tiff: $0)?.orientation }
    }

    /// The TIFF structure of the first 'Exif' block attached to `handle` (after the block's 4-byte offset
    /// to it), or nil.
    static func tiff(of handle: OpaquePointer) -> [UInt8]? {
        guard heif_image_handle_get_number_of_metadata_blocks(handle, "Exif") > 0 else { return nil }
        var id: heif_item_id = 0
        guard heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1 else { return nil }
        let size = heif_image_handle_get_metadata_size(handle, id)
        guard size >= 12, size <= 16 << 20 else { return nil }
        var block = [UInt8](repeating: 0, count: size)
        guard
            block.withUnsafeMutableBytes({ heif_image_handle_get_metadata(handle, id, $0.baseAddress) }).code
                == heif_error_Ok
        else { return nil }
        return ExifBlock.tiff(inPayload: block)
    }
}
