import CHEIF
import TroveCore

/// One libheif context over bytes that outlive it (read without a copy) and its primary image's handle,
/// both released with it. Confined to the call that made it.
final class HEIFFile {
    private let context: OpaquePointer
    /// The primary image: the one a viewer shows.
    let primary: OpaquePointer
    /// The primary image's item id.
    let primaryID: heif_item_id

    /// Reads the container (boxes, item properties, no pixels) of `bytes`.
    /// - Parameter maxSide: libheif's own gate on each side, checked while it reads the 'ispe' boxes.
    init(_ bytes: UnsafeRawBufferPointer, maxSide: Int, maxThreads: Int) throws {
        _ = Libheif.initialized
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw HEIFDecoder.failure("the file is empty") }
        guard let context = heif_context_alloc() else { throw HEIFDecoder.failure("out of memory starting libheif") }
        self.context = context
        heif_context_set_maximum_image_size_limit(context, Int32(clamping: maxSide))
        heif_context_set_max_decoding_threads(context, Int32(clamping: max(maxThreads, 0)))
        var primary: OpaquePointer?
        var primaryID: heif_item_id = 0
        do {
            try Libheif.check(
                heif_context_read_from_memory_without_copy(context, base, bytes.count, nil), "reading the container")
            try Libheif.check(heif_context_get_primary_image_handle(context, &primary), "finding the primary image")
            try Libheif.check(heif_context_get_primary_image_ID(context, &primaryID), "finding the primary image")
        } catch {
            heif_context_free(context)
            throw error
        }
        guard let primary else {
            heif_context_free(context)
            throw HEIFDecoder.failure("finding the primary image: libheif returned none")
        }
        self.primary = primary
        self.primaryID = primaryID
    }

    deinit {
        heif_image_handle_release(primary)
        heif_context_free(context)
    }

    /// The handle's size as displayed: after libheif's rotation ('irot') and any crop ('clap').
    static func size(of handle: OpaquePointer) -> PixelSize {
        PixelSize(
            width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)))
    }

    /// The primary image's size as displayed, turned where libheif reports it unturned
    /// (`HEIFDeclaredSizes.displayedSize`); `bytes` is the file this was read from.
    func primarySize(in bytes: UnsafeRawBufferPointer) -> PixelSize {
        HEIFDeclaredSizes.displayedSize(Self.size(of: primary), item: primaryID, in: bytes)
    }

    /// The primary image's embedded thumbnails, largest first; each handle is the caller's to release.
    func thumbnails() throws -> [OpaquePointer] {
        let count = Int(heif_image_handle_get_number_of_thumbnails(primary))
        guard count > 0 else { return [] }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif_image_handle_get_list_of_thumbnail_IDs(primary, &ids, Int32(count)))
        var handles: [OpaquePointer] = []
        for id in ids.prefix(listed) {
            var handle: OpaquePointer?
            let error = heif_image_handle_get_thumbnail(primary, id, &handle)
            if error.code != heif_error_Ok {
                for handle in handles { heif_image_handle_release(handle) }
                try Libheif.check(error, "reading thumbnail \(id)")
            }
            if let handle { handles.append(handle) }
        }
        return handles.sorted {
            let a = Self.size(of: $0), b = Self.size(of: $1)
            return a.width * a.height > b.width * b.height
        }
    }
}
