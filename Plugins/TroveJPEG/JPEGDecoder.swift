import CJPEGShim
import Foundation
import TroveCore

/// Decodes baseline and progressive JPEGs through libjpeg-turbo to RGBA8 (gray and CMYK/YCCK converted),
/// reading the EXIF orientation into `Image.orientation` without applying it, and an embedded ICC profile
/// (APP2 markers joined) into `Image.colorDescription`. CMYK and YCCK samples go through
/// `DecodingOptions.colorConverter` and their profile (Adobe's inverted inks included) when one is given, else
/// through a plain ink formula; either way the image is RGB with no colour description. Progressive: while a file
/// arrives, it can show it after each complete scan, or a baseline file's rows so far.
package struct JPEGDecoder: ProgressiveImageDecoder, EmbeddedMetadataReading {
    /// The registry name, "jpeg".
    package let name = "jpeg"
    /// `.jpeg`.
    package let format = ImageFormat.jpeg
    /// The most progressive scans accepted; real encoders write about ten.
    package var maxScans: Int

    /// A decoder that refuses files with more than `maxScans` progressive scans (default 500).
    package init(maxScans: Int = 500) {
        self.maxScans = maxScans
    }

    /// A start-of-image marker followed by another marker.
    package func canDecode(_ header: Data) -> Bool {
        header.starts(with: [0xFF, 0xD8, 0xFF])
    }

    static func failure(_ reason: String) -> TroveError {
        TroveError.decodingFailed(format: .jpeg, reason: reason)
    }

    /// Decodes at full size. Throws `imageTooLarge` when the stored size is over `limits`, and
    /// `decodingFailed` for a damaged or unsupported file or one with more than `maxScans` scans.
    package func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
        try decode(data, options: DecodingOptions(limits: limits))
    }

    /// True: the scaled IDCT makes ceil(side x M/8) pixels, the last of a side standing for part of a block.
    package var reducesByBlocks: Bool { true }

    /// With `options.minimumSize`, decodes through libjpeg-turbo's scaled IDCT at the smallest M/8 of the
    /// stored size (M in 1...8) that is still at least that size in both dimensions; never larger than stored.
    /// Limits apply to the stored size: libjpeg's working memory for a progressive file is full-size anyway.
    package func decode(_ data: Data, options: DecodingOptions) throws -> Image {
        let limits = options.limits
        return try withDecoder(data, limits: limits) { decoder, header, lastError in
            let layout = try prepare(decoder, header: header, options: options, lastError: lastError)
            let cmykTransform = Self.cmykTransform(decoder, header: header, options: options)
            let width = layout.width, height = layout.height
            let pixels = try [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, initialized in
                guard let out = buffer.baseAddress else { return }
                guard trove_jpeg_decoder_decode_rgba(decoder, out, buffer.count) == 0 else { throw lastError() }
                cmykTransform?.apply(out, count: width * height)
                initialized = buffer.count
            }
            return Image(
                width: width, height: height, pixelFormat: .rgba8, bytesPerRow: width * 4,
                pixels: pixels, sourceFormat: .jpeg, orientation: layout.orientation,
                colorDescription: layout.colorDescription)
        }
    }

    /// An incremental decode that shows a progressive image after each complete scan and a baseline one as
    /// its rows so far, refusing a size over `limits`
    /// (checked once the header has arrived, before anything is allocated for the image) and files with more
    /// than `maxScans` scans.
    package func makeIncrementalDecoder(limits: DecodingLimits) -> any IncrementalImageDecoder {
        JPEGIncrementalDecoder(limits: limits, maxScans: maxScans)
    }

    /// The TIFF structure of the file's APP1 EXIF marker, or nil.
    package func exif(_ data: Data) -> [UInt8]? {
        JPEGSegments.exif(in: data)
    }

    /// The APP1 EXIF and XMP markers and the APP13 marker's IPTC-IIM datasets.
    package func embeddedMetadata(_ data: Data) -> EmbeddedMetadata {
        JPEGSegments.metadata(in: data)
    }

    /// The stored size from the header (SOF) and the EXIF orientation, without decoding any pixel.
    package func info(_ data: Data) throws -> ImageInfo? {
        try withDecoder(data, limits: .default) { _, header, _ in
            ImageInfo(
                format: .jpeg, width: Int(header.width), height: Int(header.height),
                orientation: Self.orientation(header))
        }
    }

    /// The EXIF orientation of the APP1 marker libjpeg kept; `.up` without one.
    static func orientation(_ header: trove_jpeg_header) -> ExifOrientation {
        header.exif.flatMap {
            ExifBlock(tiff: UnsafeRawBufferPointer(start: $0, count: header.exif_length))?.orientation
        } ?? .up
    }

    /// Checks the stored size against `options.limits`, sets the scale `options.minimumSize` calls for, and
    /// returns the size and orientation the decode will produce.
    func prepare(
        _ decoder: OpaquePointer, header: trove_jpeg_header, options: DecodingOptions,
        lastError: () -> TroveError
    ) throws -> RowStreamHeader {
        let stored = PixelSize(width: Int(header.width), height: Int(header.height))
        try options.limits.check(width: stored.width, height: stored.height)
        let orientation = Self.orientation(header)
        var width = stored.width, height = stored.height
        if let minimum = options.minimumSize {
            var scaledWidth: Int32 = 0, scaledHeight: Int32 = 0
            let numerator = JPEGScale.numerator(for: stored, minimum: minimum)
            guard trove_jpeg_decoder_set_scale(decoder, Int32(numerator), &scaledWidth, &scaledHeight) == 0
            else { throw lastError() }
            width = Int(scaledWidth)
            height = Int(scaledHeight)
        }
        return RowStreamHeader(
            width: width, height: height, sourceFormat: .jpeg, orientation: orientation,
            colorDescription: Self.isCMYK(header) ? nil : Self.colorDescription(header))
    }

    /// Whether libjpeg delivers this file's samples as CMYK (a CMYK or YCCK file).
    static func isCMYK(_ header: trove_jpeg_header) -> Bool {
        header.color_space == 4 || header.color_space == 5  // JCS_CMYK, JCS_YCCK
    }

    /// What the header says about colours: the joined ICC profile, and for CMYK how the inks are stored.
    static func colorDescription(_ header: trove_jpeg_header) -> ColorDescription? {
        let icc = header.icc.map { [UInt8](UnsafeBufferPointer(start: $0, count: header.icc_length)) }
        let cmyk =
            isCMYK(header)
            // Inverted inks, with or without Adobe's marker (see `trove_cmyk_to_rgba`).
            ? ColorDescription.CMYK(isInverted: true, wasYCCK: header.color_space == 5) : nil
        let description = ColorDescription(iccProfile: icc, cmyk: cmyk)
        guard !description.isEmpty else { return nil }
        // 1 is JCS_GRAYSCALE: a gray profile is for one component only.
        return header.color_space == 1 || cmyk != nil ? description : description.forColorSamples()
    }

    /// For a CMYK file and a converter that has a transform for it (the file's profile, else the converter's
    /// default CMYK profile): the transform, with libjpeg told to hand over CMYK samples unconverted. Nil
    /// otherwise, and the shim's plain ink formula applies.
    static func cmykTransform(
        _ decoder: OpaquePointer, header: trove_jpeg_header, options: DecodingOptions
    ) -> (any ColorTransform)? {
        guard isCMYK(header), let converter = options.colorConverter,
            var description = colorDescription(header)
        else { return nil }
        var transform = try? converter.transformToSRGB(from: description, samples: .cmyk8)
        if transform == nil, description.iccProfile != nil {
            // A damaged or non-CMYK embedded profile: the converter's default CMYK profile instead.
            description.iccProfile = nil
            transform = try? converter.transformToSRGB(from: description, samples: .cmyk8)
        }
        if transform != nil { trove_jpeg_decoder_keep_cmyk(decoder) }
        return transform
    }

    /// Runs `body` on a libjpeg decoder whose header has been read, destroying it afterwards.
    func withDecoder<T>(
        _ data: Data, limits: DecodingLimits,
        _ body: (OpaquePointer, trove_jpeg_header, () -> TroveError) throws -> T
    ) throws -> T {
        try data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else {
                throw Self.failure("the file is empty")
            }
            // libjpeg's working memory (progressive coefficient buffers) is bounded by the same byte limit.
            guard
                let decoder = trove_jpeg_decoder_create(
                    base, bytes.count, limits.maxDecodedBytes,
                    Int32(clamping: maxScans))
            else { throw Self.failure("out of memory starting libjpeg") }
            defer { trove_jpeg_decoder_destroy(decoder) }
            func lastError() -> TroveError {
                Self.failure(String(cString: trove_jpeg_decoder_error(decoder)))
            }
            var header = trove_jpeg_header()
            guard trove_jpeg_decoder_read_header(decoder, &header) == 0 else { throw lastError() }
            return try body(decoder, header, lastError)
        }
    }
}
