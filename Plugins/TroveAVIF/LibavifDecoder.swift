import CAVIF
import TroveCore

/// One libavif decoder reading bytes that outlive it (libavif does not copy them), destroyed with it.
/// Confined to the call that made it.
final class LibavifDecoder {
    let raw: UnsafeMutablePointer<avifDecoder>

    /// A decoder over `bytes` with libavif's own limits taken from `limits` (its defaults when nil); it
    /// reads the Exif item only when `readsExif` is set, and the XMP item only when `readsXMP` is.
    init(
        _ bytes: UnsafeRawBufferPointer, limits: DecodingLimits?, maxThreads: Int, readsExif: Bool = false,
        readsXMP: Bool = false
    ) throws {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else {
            throw AVIFDecoder.failure("the file is empty")
        }
        guard let raw = avifDecoderCreate() else { throw AVIFDecoder.failure("out of memory starting libavif") }
        self.raw = raw
        raw.pointee.maxThreads = Int32(clamping: max(maxThreads, 1))
        // Browsers read AVIF leniently, and so does Trove: libavif 0.11's strict checks refuse files the format
        // allows (no 'pixi', no 'ispe' on the alpha item, a clean aperture it cannot convert). The crop is
        // worked out by `AVIFCleanAperture`; the size and frame limits below are not strictness and stay.
        raw.pointee.strictFlags = AVIF_STRICT_DISABLED.rawValue
        // Only the copyright notice is read from Exif and XMP, and only when asked.
        raw.pointee.ignoreExif = readsExif ? AVIF_FALSE : AVIF_TRUE
        raw.pointee.ignoreXMP = readsXMP ? AVIF_FALSE : AVIF_TRUE
        if let limits {
            // libavif's first gate, checked while it parses (and by dav1d on the AV1 frame size). libavif
            // refuses a size limit above its default. The image count keeps libavif's default: a sequence
            // longer than `maxFrames` is read, and only its first frames decoded.
            let pixels = min(limits.maxPixels, limits.maxDecodedBytes / 4)
            raw.pointee.imageSizeLimit = UInt32(clamping: min(max(pixels, 1), Int(AVIF_DEFAULT_IMAGE_SIZE_LIMIT)))
        }
        let result = avifDecoderSetIOMemory(raw, base, bytes.count)
        guard result == AVIF_RESULT_OK else { throw failure(result, "reading from memory") }
    }

    deinit { avifDecoderDestroy(raw) }

    /// Reads the container (sizes, depth, frame count, timing) without decoding any pixels.
    func parse() throws {
        let result = avifDecoderParse(raw)
        guard result == AVIF_RESULT_OK else { throw failure(result, "reading the container") }
    }

    /// Width and height the container declares; valid after `parse()`.
    var size: PixelSize {
        PixelSize(width: Int(raw.pointee.image.pointee.width), height: Int(raw.pointee.image.pointee.height))
    }

    /// The Exif item's TIFF structure, valid after `parse()` of a decoder that reads it; nil when none.
    var exif: [UInt8]? {
        let exif = raw.pointee.image.pointee.exif
        guard let data = exif.data, exif.size > 0 else { return nil }
        return ExifBlock.tiff(inPayload: [UInt8](UnsafeBufferPointer(start: data, count: exif.size)))
    }

    /// The XMP item's packet, valid after `parse()` of a decoder that reads it; nil when none.
    var xmp: [UInt8]? {
        let xmp = raw.pointee.image.pointee.xmp
        guard let data = xmp.data, xmp.size > 0 else { return nil }
        return [UInt8](UnsafeBufferPointer(start: data, count: xmp.size))
    }

    /// The part of each image the 'clap' box keeps, valid after `parse()`; nil without a usable one.
    var cleanAperture: AVIFCleanAperture.Rect? {
        let image = raw.pointee.image.pointee
        guard image.transformFlags & AVIF_TRANSFORM_CLAP.rawValue != 0 else { return nil }
        return AVIFCleanAperture.cropRect(image.clap, width: Int(image.width), height: Int(image.height))
    }

    /// The size shown before rotation and mirroring: the clean aperture's, else the whole image's.
    var croppedSize: PixelSize {
        cleanAperture.map { PixelSize(width: $0.width, height: $0.height) } ?? size
    }

    /// Images in the file: 1 for a still image, the frame count of a sequence.
    var imageCount: Int { Int(raw.pointee.imageCount) }

    /// The container's rotation and mirroring, as the EXIF orientation that means the same.
    var orientation: ExifOrientation {
        let image = raw.pointee.image.pointee
        let rotates = image.transformFlags & AVIF_TRANSFORM_IROT.rawValue != 0
        let mirrors = image.transformFlags & AVIF_TRANSFORM_IMIR.rawValue != 0
        return AVIFOrientation.exif(
            quarterTurnsAnticlockwise: rotates ? Int(image.irot.angle) : 0,
            mirror: mirrors ? Int(image.imir.mode) : nil)
    }

    /// Decodes the next image (the first, after `parse()`) into libavif's YUV planes.
    func decodeNextImage() throws -> UnsafeMutablePointer<avifImage> {
        let result = avifDecoderNextImage(raw)
        guard result == AVIF_RESULT_OK, let image = raw.pointee.image else {
            throw failure(result, "decoding image \(raw.pointee.imageIndex + 1) of \(imageCount)")
        }
        return image
    }

    /// How long image `index` of a sequence shows.
    func duration(ofImage index: Int) throws -> Duration {
        var timing = avifImageTiming()
        let result = avifDecoderNthImageTiming(raw, UInt32(index), &timing)
        guard result == AVIF_RESULT_OK else { throw failure(result, "reading the timing of image \(index + 1)") }
        return Duration(ticks: timing.durationInTimescales, timescale: timing.timescale)
    }

    /// The error for a failed step, with libavif's result string and its diagnostic when it left one.
    func failure(_ result: avifResult, _ step: String) -> TroveError {
        AVIFDecoder.failure(LibavifMessage.describe(result, raw.pointee.diag, step))
    }
}
