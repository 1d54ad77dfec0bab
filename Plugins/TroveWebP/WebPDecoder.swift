import CWebP
import Foundation
import TroveCore

/// Decodes WebP through libwebp to straight-alpha RGBA8: lossy, lossless and alpha stills (optionally at a
/// reduced size with libwebp's scaled decoding) and animations, every frame composed to the full canvas
/// with its delay. The declared size and frame count are checked against `DecodingLimits` before anything
/// is allocated for them.
package struct WebPDecoder: ImageDecoder, EmbeddedMetadataReading {
    /// The registry name, "webp".
    package let name = "webp"
    /// `.webp`.
    package let format = ImageFormat.webp

    /// A decoder with libwebp's default options (fancy upsampling, no dithering).
    package init() {}

    /// "RIFF", four bytes of length, then "WEBP".
    package func canDecode(_ header: Data) -> Bool {
        header.count >= 12 && header.prefix(4).elementsEqual("RIFF".utf8)
            && header.dropFirst(8).prefix(4).elementsEqual("WEBP".utf8)
    }

    /// Decodes at full size.
    package func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
        try decode(data, options: DecodingOptions(limits: limits))
    }

    /// Decodes a still at the smallest size that keeps the aspect ratio and is at least
    /// `options.minimumSize` in both dimensions (full size when the request is not smaller than the
    /// image). Animations are always decoded at full size, keeping their first `options.limits.maxFrames`
    /// frames.
    package func decode(_ data: Data, options: DecodingOptions) throws -> Image {
        try data.withUnsafeBytes { bytes in
            let header = try WebPHeader(bytes)
            try options.limits.check(width: header.width, height: header.height)
            if header.isAnimated {
                try options.limits.check(frames: header.frameCount, width: header.width, height: header.height)
                var image = try WebPAnimationDecoding.decode(bytes, limits: options.limits)
                image.colorDescription = WebPColorProfile.description(in: bytes)
                image.orientation = Self.orientation(data)
                return image
            }
            let size =
                options.minimumSize.map {
                    Self.scaledSize(width: header.width, height: header.height, minimum: $0)
                } ?? PixelSize(width: header.width, height: header.height)
            var image = try decodeStill(bytes, header: header, size: size)
            image.colorDescription = WebPColorProfile.description(in: bytes)
            image.orientation = Self.orientation(data)
            return image
        }
    }

    /// The TIFF structure in the file's EXIF chunk, or nil.
    package func exif(_ data: Data) -> [UInt8]? {
        WebPMetadataChunks.exif(in: data)
    }

    /// The EXIF chunk's TIFF structure and the "XMP " chunk's packet.
    package func embeddedMetadata(_ data: Data) -> EmbeddedMetadata {
        WebPMetadataChunks.metadata(in: data)
    }

    /// The size and frame count from the container's headers, and the EXIF chunk's orientation; no pixel is
    /// decoded.
    package func info(_ data: Data) throws -> ImageInfo? {
        try data.withUnsafeBytes { bytes in
            let header = try WebPHeader(bytes)
            return ImageInfo(
                format: .webp, width: header.width, height: header.height,
                frameCount: header.frameCount, orientation: Self.orientation(data))
        }
    }

    /// The EXIF chunk's orientation, `.up` without one: browsers apply it to WebP as to JPEG.
    static func orientation(_ data: Data) -> ExifOrientation {
        WebPMetadataChunks.exif(in: data).flatMap { ExifBlock(tiff: $0)?.orientation } ?? .up
    }

    /// The smallest size with the image's aspect ratio (rounded up) that is at least `minimum` in both
    /// dimensions, never larger than the image itself.
    static func scaledSize(width: Int, height: Int, minimum: PixelSize) -> PixelSize {
        let minWidth = max(minimum.width, 1), minHeight = max(minimum.height, 1)
        guard minWidth < width, minHeight < height else { return PixelSize(width: width, height: height) }
        // The dimension whose ratio to the minimum is smaller binds; the other is scaled by the same factor,
        // rounded up so it stays at or above its own minimum. Integer arithmetic: no float edge cases.
        if minWidth * height >= minHeight * width {
            let scaledHeight = (height * minWidth + width - 1) / width
            return PixelSize(width: minWidth, height: min(max(scaledHeight, minHeight), height))
        } else {
            let scaledWidth = (width * minHeight + height - 1) / height
            return PixelSize(width: min(max(scaledWidth, minWidth), width), height: minHeight)
        }
    }

    /// One still image through `WebPDecode`, written straight into the array's storage.
    private func decodeStill(_ bytes: UnsafeRawBufferPointer, header: WebPHeader, size: PixelSize) throws -> Image {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw WebPErrors.decoding("the file is empty")
        }
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw WebPErrors.decoding("the libwebp library does not match the headers Trove was built with")
        }
        let status = WebPGetFeatures(base, bytes.count, &config.input)
        guard status == VP8_STATUS_OK else { throw WebPErrors.decoding(status) }
        // Limits were checked on Trove's reading of the header; libwebp must have read the same size.
        guard Int(config.input.width) == header.width, Int(config.input.height) == header.height else {
            throw WebPErrors.decoding(
                "the header declares \(header.width)x\(header.height) but libwebp reads "
                    + "\(config.input.width)x\(config.input.height)")
        }
        if size.width != header.width || size.height != header.height {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(size.width)
            config.options.scaled_height = Int32(size.height)
        }
        let rowBytes = size.width * 4
        let pixels = try [UInt8](unsafeUninitializedCapacity: rowBytes * size.height) { buffer, initialized in
            config.output.colorspace = MODE_RGBA  // straight alpha, R G B A byte order
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = buffer.baseAddress
            config.output.u.RGBA.stride = Int32(rowBytes)
            config.output.u.RGBA.size = buffer.count
            let status = WebPDecode(base, bytes.count, &config)
            WebPFreeDecBuffer(&config.output)  // frees nothing of ours (external memory); for symmetry
            guard status == VP8_STATUS_OK else { throw WebPErrors.decoding(status) }
            initialized = buffer.count
        }
        return Image(
            width: size.width, height: size.height, pixelFormat: .rgba8, bytesPerRow: rowBytes,
            pixels: pixels, sourceFormat: .webp)
    }
}
