import CHEIF
import TroveCore

/// The metadata items of a HEIF image Trove reads: the 'Exif' item, whose Orientation tag HEIF defines as
/// informative only ('irot' and 'imir' are what turn the picture, and libheif applies those), and the XMP
/// packet ('mime' item of content type application/rdf+xml) for the copyright notice.
enum HEIFExif {
    /// The XMP item's content type.
    static let xmpContentType = "application/rdf+xml"
    /// A metadata item larger than this is not read.
    static let maxItemSize = 16 << 20

    /// The orientation in the first 'Exif' block attached to `handle`; nil when there is none or it is
    /// malformed (a bad EXIF block never makes a good picture undecodable).
    static func orientation(of handle: OpaquePointer) -> ExifOrientation? {
        tiff(of: handle).flatMap { ExifBlock(tiff: $0)?.orientation }
    }

    /// The TIFF structure of the first 'Exif' block attached to `handle` (after the block's 4-byte offset
    /// to it), or nil.
    static func tiff(of handle: OpaquePointer) -> [UInt8]? {
        guard let id = itemIDs(of: handle, type: "Exif").first, let block = item(id, of: handle), block.count >= 12
        else { return nil }
        return ExifBlock.tiff(inPayload: block)
    }

    /// The packet of the first XMP item attached to `handle`, or nil.
    static func xmp(of handle: OpaquePointer) -> [UInt8]? {
        let id = itemIDs(of: handle, type: "mime").first { id in
            heif_image_handle_get_metadata_content_type(handle, id).map { String(cString: $0) } == xmpContentType
        }
        return id.flatMap { item($0, of: handle) }
    }

    /// The IDs of the metadata items of `type` attached to `handle`.
    private static func itemIDs(of handle: OpaquePointer, type: String) -> [heif_item_id] {
        let count = Int(heif_image_handle_get_number_of_metadata_blocks(handle, type))
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif_image_handle_get_list_of_metadata_block_IDs(handle, type, &ids, Int32(count)))
        return Array(ids.prefix(max(0, min(listed, count))))
    }

    /// The bytes of metadata item `id`, or nil when it is empty, too large or unreadable.
    private static func item(_ id: heif_item_id, of handle: OpaquePointer) -> [UInt8]? {
        let size = heif_image_handle_get_metadata_size(handle, id)
        guard size > 0, size <= maxItemSize else { return nil }
        var block = [UInt8](repeating: 0, count: size)
        guard
            block.withUnsafeMutableBytes({ heif_image_handle_get_metadata(handle, id, $0.baseAddress) }).code
                == heif_error_Ok
        else { return nil }
        return block
    }
}
