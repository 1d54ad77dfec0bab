import CHEIF
import Foundation
import TroveCore

/// Decodes HEIC (HEVC-coded HEIF) through libheif and libde265 to straight-alpha RGBA8: the primary image,
/// with its alpha when it has one, 10- and 12-bit files reduced to 8 bits per channel.
///
/// libheif applies the container's rotation ('irot'), mirroring ('imir') and crop ('clap'), as HEIF
/// requires, so the pixels come out upright and `Image.orientation` is always `.up`. The EXIF Orientation
/// tag is informative in HEIF (it repeats what 'irot'/'imir' already did), so it is not applied again;
/// `exifOrientation(_:)` reads it for display. The 'colr' box becomes `Image.colorDescription`.
///
/// libheif cannot decode at a reduced size, so `decode(_:options:)` decodes at full size; a file's own
/// embedded thumbnail is available from `thumbnail(_:limits:)`.
///
/// Only still items are read (libheif 1.15 has no track API): an image sequence (`msf1`/`hevc`) decodes
/// to its primary still image when it has one and is refused otherwise; frame limits never bind.
package struct HEIFDecoder: ImageDecoder, EmbeddedMetadataReading {
    /// The registry name, "heic".
    package let name = "heic"
    /// `.heic`.
    package let format = ImageFormat.heic
    /// Threads libheif may use for a grid image's tiles (libde265 decodes each tile on one of them).
    package var maxThreads: Int

    /// - Parameter maxThreads: threads for one decode; 2 keeps a server's concurrent decodes from
    ///   oversubscribing its cores.
    package init(maxThreads: Int = 2) {
        self.maxThreads = maxThreads
    }

    /// An ISO-BMFF `ftyp` box whose major brand is an HEVC one (`heic`, `heix`, `heim`, `heis`, `hevc`,
    /// `hevx`), or the generic `mif1`/`msf1` without `avif` or `avis` among the compatible brands (those
    /// files are TroveAVIF's).
    package func canDecode(_ header: Data) -> Bool {
        HEIFSignature.matches(header)
    }

    static func failure(_ reason: String) -> TroveError {
        TroveError.decodingFailed(format: .heic, reason: reason)
    }

    /// Decodes the primary image. Its size, and every size the decode allocates at (a derived image's canvas,
    /// each HEVC picture's; `HEIFDeclaredSizes`), is checked against `limits` after the container is read and
    /// before any pixel is decoded.
    package func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
        try data.withUnsafeBytes { bytes in
            let file = try open(bytes, limits: limits)
            // The handle belongs to `file`: it must stay alive until the last use of the handle.
            return try withExtendedLifetime(file) {
                let size = try checkedSize(file.primarySize(in: bytes), limits: limits)
                try checkDeclaredSizes(bytes, limits: limits, thumbnails: false)
                let pixels = try HEIFPixels.rgba8(file.primary, expected: size)
                return Image(
                    width: size.width, height: size.height, pixelFormat: .rgba8, bytesPerRow: size.width * 4,
                    pixels: pixels, sourceFormat: .heic, colorDescription: HEIFColor.description(of: file.primary))
            }
        }
    }

    /// The primary image's displayed size (after rotation and crop), from the container only.
    package func info(_ data: Data) throws -> ImageInfo? {
        try data.withUnsafeBytes { bytes in
            let file = try open(bytes, limits: .default)
            let size = withExtendedLifetime(file) { file.primarySize(in: bytes) }
            guard size.width > 0, size.height > 0 else {
                throw Self.failure("the primary image declares a size of \(size)")
            }
            return ImageInfo(format: .heic, width: size.width, height: size.height)
        }
    }

    /// The largest thumbnail the file embeds for its primary image (cameras and phones write one of a few
    /// hundred pixels), decoded like the image itself and checked against `limits`; nil when the file has
    /// none. It is a separate, smaller encode of the picture, so it is what imgproxy's `enforce_thumbnail`
    /// asks for, never a stand-in for the image in an ordinary decode.
    package func thumbnail(_ data: Data, limits: DecodingLimits = .default) throws -> Image? {
        try data.withUnsafeBytes { bytes in
            // The primary image may be over `limits` (that is when a thumbnail helps most): only the
            // thumbnail is checked against them.
            let file = try open(bytes, limits: .default)
            // Thumbnail handles are separately counted references; each is released below.
            let thumbnails = try withExtendedLifetime(file) { try file.thumbnails() }
            defer { for handle in thumbnails { heif_image_handle_release(handle) } }
            guard let largest = thumbnails.first else { return nil }
            let size = try checkedSize(HEIFFile.size(of: largest), limits: limits)
            try checkDeclaredSizes(bytes, limits: limits, thumbnails: true)
            let pixels = try HEIFPixels.rgba8(largest, expected: size)
            return Image(
                width: size.width, height: size.height, pixelFormat: .rgba8, bytesPerRow: size.width * 4,
                pixels: pixels, sourceFormat: .heic, colorDescription: HEIFColor.description(of: largest))
        }
    }

    /// The TIFF structure of the primary image's Exif item, or nil.
    package func exif(_ data: Data) -> [UInt8]? {
        data.withUnsafeBytes { bytes in
            guard let file = try? open(bytes, limits: .default) else { return nil }
            return withExtendedLifetime(file) { HEIFExif.tiff(of: file.primary) }
        }
    }

    /// The primary image's Exif item (its TIFF structure) and XMP item.
    package func embeddedMetadata(_ data: Data) -> EmbeddedMetadata {
        data.withUnsafeBytes { bytes in
            guard let file = try? open(bytes, limits: .default) else { return EmbeddedMetadata() }
            return withExtendedLifetime(file) {
                EmbeddedMetadata(exif: HEIFExif.tiff(of: file.primary), xmp: HEIFExif.xmp(of: file.primary))
            }
        }
    }

    /// The EXIF Orientation tag of the primary image, nil when it has no EXIF or no such tag. For display
    /// only: the decoded pixels are already turned by 'irot'/'imir', which the tag merely repeats.
    package func exifOrientation(_ data: Data) throws -> ExifOrientation? {
        try data.withUnsafeBytes { bytes in
            let file = try open(bytes, limits: .default)
            return withExtendedLifetime(file) { HEIFExif.orientation(of: file.primary) }
        }
    }

    /// The container read with libheif's per-side gate at the pixel limit, so no side over it gets further.
    private func open(_ bytes: UnsafeRawBufferPointer, limits: DecodingLimits) throws -> HEIFFile {
        let pixelLimit = min(limits.maxPixels, limits.maxDecodedBytes / 4)
        // libheif refuses a side at or over its limit; keep it above any side the area check could accept.
        return try HEIFFile(bytes, maxSide: min(max(pixelLimit, 1), Int(Int32.max) - 1) + 1, maxThreads: maxThreads)
    }

    /// Refuses the file when something the decode allocates at a size of its own (a derived image's canvas, an
    /// HEVC picture) is declared over `limits`: libheif and libde265 would allocate it before any check.
    private func checkDeclaredSizes(
        _ bytes: UnsafeRawBufferPointer, limits: DecodingLimits, thumbnails: Bool
    ) throws {
        for declared in HEIFDeclaredSizes.declared(in: bytes, thumbnails: thumbnails) {
            // A picture is coded in whole coding blocks (at most 64 pixels a side): a coded size up to 63
            // pixels past the image on each side is padding the conformance window crops, not counted here.
            let padding = declared.what == HEIFDeclaredSizes.hevcPicture ? 63 : 0
            do {
                try limits.check(
                    width: max(declared.width - padding, 1), height: max(declared.height - padding, 1))
            } catch {
                throw Self.failure(
                    "item \(declared.item)'s \(declared.what) is declared \(declared.width)x\(declared.height), "
                        + "over the limits; decoding it would allocate that much")
            }
        }
    }

    /// A handle's displayed size, refused when it is empty or over `limits`.
    private func checkedSize(_ size: PixelSize, limits: DecodingLimits) throws -> PixelSize {
        guard size.width > 0, size.height > 0 else {
            throw Self.failure("the image declares a size of \(size)")
        }
        try limits.check(width: size.width, height: size.height)
        return size
    }
}
