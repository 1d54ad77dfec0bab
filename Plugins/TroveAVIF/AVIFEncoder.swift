import CAVIF
import Foundation
import TroveCore

/// Encodes images as AVIF through libavif (with libaom, on Debian's build): lossy 4:2:0, or lossless 4:4:4
/// with the identity matrix when `EncodingOptions.lossless` is set. Alpha is kept (an alpha plane is
/// written only when some pixel is not opaque). An image with two or more frames becomes an image
/// sequence (`avis`) with each frame's delay, to the millisecond; its loop count is not written, since
/// libavif 0.11 cannot (players loop sequences forever).
package struct AVIFEncoder: ImageEncoder {
    /// The registry name, "avif".
    package let name = "avif"
    /// `.avif`, still images and sequences alike.
    package let format = ImageFormat.avif
    /// libavif's speed (0 slowest ... 10 fastest) when `EncodingOptions.speed` is nil.
    package var defaultSpeed: Int
    /// Threads libavif and libaom may use for one encode.
    package var maxThreads: Int

    /// - Parameters:
    ///   - defaultSpeed: 8 suits a server: on five photos fitted into 512x512 at qualities 0.63 and 0.80 it
    ///     encodes in 0.41-0.55× speed 6's time (Pillow's default) for files 1.4-2.7% larger and 0.3-0.4 dB
    ///     lower; 9 and 10 grow files by 13% (`scripts/avif-speed`, docs/BENCHMARKS.md).
    ///   - maxThreads: threads for one encode; 2 keeps concurrent encodes from oversubscribing the cores.
    package init(defaultSpeed: Int = 8, maxThreads: Int = 2) {
        self.defaultSpeed = defaultSpeed
        self.maxThreads = maxThreads
    }

    /// The largest side and area libavif's decoder reads by default (`AVIF_DEFAULT_IMAGE_DIMENSION_LIMIT`,
    /// `AVIF_DEFAULT_IMAGE_SIZE_LIMIT`): a file written larger would not open in libavif, Chrome's reader among
    /// them, though AV1 allows sides to 65536.
    static let maxDimension = 32768, maxPixels = 16384 * 16384

    /// Throws `encodingFailed`, naming the limits, for a size outside them.
    static func checkSize(width: Int, height: Int) throws {
        guard (1...maxDimension).contains(width), (1...maxDimension).contains(height), width * height <= maxPixels
        else {
            throw failure(
                "AVIF sides must be 1...\(maxDimension) pixels and \(maxPixels) pixels in all, what libavif reads; "
                    + "this image is \(width)x\(height)")
        }
    }

    /// Timescale of a sequence's durations: milliseconds, as GIF's centiseconds and WebP's milliseconds fit.
    static let timescale: UInt64 = 1000

    /// libavif's quantizer (0 best ... 63 worst) for a quality 0...1, clamped. This is the formula libavif 1.x
    /// uses for its own `quality` field, `((100 - q) * 63 + 50) / 100` on q in 0...100, so quality 0.85
    /// makes the same quantizer (9) as Pillow's `quality=85`. The quantizer is fixed (min = max): constant
    /// quality, file size following the picture.
    static func quantizer(forQuality quality: Double) -> Int32 {
        let q = quality.isFinite ? min(max(quality, 0), 1) : 0.85
        let percent = Int32((q * 100).rounded())
        return ((100 - percent) * 63 + 50) / 100
    }

    /// Encodes `image` (every frame, when it has two or more) with `options.quality` (or `lossless`) and
    /// `options.speed`; `compressionLevel` does not apply.
    package func encode(_ image: Image, options: EncodingOptions) throws -> Data {
        try Self.checkSize(width: image.width, height: image.height)
        let frames = try Self.frames(of: image)
        let hasAlpha = frames.contains { frame in
            stride(from: 3, to: frame.pixels.count, by: 4).contains { frame.pixels[$0] != 255 }
        }
        let encoder = try makeEncoder(options)
        defer { avifEncoderDestroy(encoder) }
        let single = frames.count == 1
        for frame in frames {
            let planes = try Self.yuvImage(
                frame.pixels, width: image.width, height: image.height,
                lossless: options.lossless, alpha: hasAlpha)
            defer { avifImageDestroy(planes) }
            try Self.add(planes, describedBy: image, delay: frame.delay, single: single, to: encoder)
        }
        return try Self.finish(encoder)
    }

    /// libavif's encoder set up for `options`, to be destroyed by the caller.
    func makeEncoder(_ options: EncodingOptions) throws -> UnsafeMutablePointer<avifEncoder> {
        guard let encoder = avifEncoderCreate() else { throw Self.failure("out of memory starting libavif") }
        let quantizer = options.lossless ? Int32(AVIF_QUANTIZER_LOSSLESS) : Self.quantizer(forQuality: options.quality)
        encoder.pointee.maxThreads = Int32(clamping: max(maxThreads, 1))
        encoder.pointee.speed = Int32(clamping: min(max(options.speed ?? defaultSpeed, 0), 10))
        encoder.pointee.minQuantizer = quantizer
        encoder.pointee.maxQuantizer = quantizer
        encoder.pointee.minQuantizerAlpha = quantizer
        encoder.pointee.maxQuantizerAlpha = quantizer
        encoder.pointee.autoTiling = AVIF_TRUE
        encoder.pointee.timescale = Self.timescale
        return encoder
    }

    /// Adds one frame's `planes` to `encoder`, with what `image` says beside its pixels: a profile the colour
    /// stage kept (a 'colr' ICC box; the CICP fields stay as written), its copyright notice and orientation.
    static func add(
        _ planes: UnsafeMutablePointer<avifImage>, describedBy image: Image, delay: Duration, single: Bool,
        to encoder: UnsafeMutablePointer<avifEncoder>
    ) throws {
        let profile = image.colorDescription?.embeddableProfile(for: .rgba8)
        let exif = image.copyright.flatMap { ExifBlock.tiff(for: $0) }
        let xmp = image.copyright.flatMap(XMPRights.packet(for:))
        profile?.withUnsafeBufferPointer { avifImageSetProfileICC(planes, $0.baseAddress, $0.count) }
        exif?.withUnsafeBufferPointer { avifImageSetMetadataExif(planes, $0.baseAddress, $0.count) }
        xmp?.withUnsafeBufferPointer { avifImageSetMetadataXMP(planes, $0.baseAddress, $0.count) }
        setOrientation(image.orientation, on: planes)
        let flags = single ? AVIF_ADD_IMAGE_FLAG_SINGLE : AVIF_ADD_IMAGE_FLAG_NONE
        let result = avifEncoderAddImage(encoder, planes, ticks(delay), flags.rawValue)
        guard result == AVIF_RESULT_OK else {
            throw failure(LibavifMessage.describe(result, encoder.pointee.diag, "encoding"))
        }
    }

    /// The file `encoder` made of the frames added to it.
    static func finish(_ encoder: UnsafeMutablePointer<avifEncoder>) throws -> Data {
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        let result = avifEncoderFinish(encoder, &output)
        guard result == AVIF_RESULT_OK, let bytes = output.data else {
            throw failure(LibavifMessage.describe(result, encoder.pointee.diag, "finishing the file"))
        }
        return Data(bytes: bytes, count: output.size)
    }

    static func failure(_ reason: String) -> TroveError {
        TroveError.encodingFailed(format: .avif, reason: reason)
    }

    /// An orientation the pipeline kept (the stored pixels) as 'irot' and 'imir', which AVIF readers apply;
    /// EXIF's tag is only informative in HEIF files.
    static func setOrientation(_ orientation: ExifOrientation, on planes: UnsafeMutablePointer<avifImage>) {
        let (turns, mirror) = AVIFOrientation.boxes(for: orientation)
        if turns != 0 {
            planes.pointee.transformFlags |= AVIF_TRANSFORM_IROT.rawValue
            planes.pointee.irot.angle = UInt8(turns)
        }
        if let mirror {
            planes.pointee.transformFlags |= AVIF_TRANSFORM_IMIR.rawValue
            planes.pointee.imir.mode = UInt8(mirror)
        }
    }

    /// The RGBA8 frames to write: every frame of an animation, else the image itself.
    private static func frames(of image: Image) throws -> [AnimationFrame] {
        guard image.frames.count > 1 else {
            return [AnimationFrame(pixels: image.convertedToRGBA8().pixels, delay: .zero)]
        }
        let bytes = image.width * image.height * 4
        if let bad = image.frames.firstIndex(where: { $0.pixels.count != bytes }) {
            throw failure(
                "frame \(bad + 1) holds \(image.frames[bad].pixels.count) bytes, not \(bytes) "
                    + "(\(image.width)x\(image.height) RGBA8)")
        }
        return image.frames
    }

    /// A frame's delay in timescale ticks, at least one (a zero-length sample is not a frame).
    static func ticks(_ delay: Duration) -> UInt64 {
        let (seconds, attoseconds) = delay.components
        let milliseconds = seconds * 1000 + Int64((Double(attoseconds) / 1e15).rounded())
        return UInt64(max(milliseconds, 1))
    }

    /// One frame converted to libavif's 8-bit YUV planes, to be destroyed by the caller. Lossy frames are
    /// 4:2:0 with BT.601 coefficients, tagged sRGB (BT.709 primaries, sRGB transfer), as avifenc writes a
    /// PNG; lossless ones are 4:4:4 with the identity matrix, so RGB goes through unchanged.
    private static func yuvImage(
        _ pixels: [UInt8], width: Int, height: Int, lossless: Bool,
        alpha: Bool
    ) throws -> UnsafeMutablePointer<avifImage> {
        let format = lossless ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420
        guard let image = avifImageCreate(UInt32(width), UInt32(height), 8, format) else {
            throw failure("out of memory for a \(width)x\(height) frame")
        }
        describeAsSRGB(image, lossless: lossless)
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = 8
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.ignoreAlpha = alpha ? AVIF_FALSE : AVIF_TRUE
        rgb.rowBytes = UInt32(width * 4)
        let result = pixels.withUnsafeBufferPointer { buffer in
            // libavif only reads from the RGB buffer when converting to YUV.
            rgb.pixels = UnsafeMutablePointer(mutating: buffer.baseAddress)
            return avifImageRGBToYUV(image, &rgb)
        }
        guard result == AVIF_RESULT_OK else {
            avifImageDestroy(image)
            throw failure("converting to YUV: \(String(cString: avifResultToString(result)))")
        }
        return image
    }

    /// Full-range YUV of sRGB (BT.709 primaries, sRGB transfer): BT.601 coefficients as JFIF's, or the
    /// identity matrix for lossless RGB.
    static func describeAsSRGB(_ image: UnsafeMutablePointer<avifImage>, lossless: Bool) {
        image.pointee.yuvRange = AVIF_RANGE_FULL
        image.pointee.colorPrimaries = UInt16(AVIF_COLOR_PRIMARIES_BT709)
        image.pointee.transferCharacteristics = UInt16(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        image.pointee.matrixCoefficients = UInt16(
            lossless ? AVIF_MATRIX_COEFFICIENTS_IDENTITY : AVIF_MATRIX_COEFFICIENTS_BT601)
    }
}
