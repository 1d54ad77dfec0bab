import CAVIF
import Foundation
import TroveCore

/// Decodes AVIF still images and image sequences (`avis`) through libavif to straight-alpha RGBA8. 8-, 10- and 12-bit
/// files are reduced to 8 bits per channel; a sequence's first `DecodingLimits.maxFrames` frames are kept with their
/// durations. MIAF's display rules come in order: the clean aperture ('clap') is cropped here, then the rotation
/// ('irot') and mirroring ('imir') are reported in `Image.orientation` for the pipeline to apply. An Exif orientation
/// inside the file is ignored: in HEIF it only repeats 'irot' and 'imir'.
package struct AVIFDecoder: ImageDecoder, EmbeddedMetadataReading {
    /// The registry name, "avif".
    package let name = "avif"
    /// `.avif`, still images and sequences alike.
    package let format = ImageFormat.avif
    /// Threads libavif and its AV1 decoder may use for one image.
    package var maxThreads: Int

    /// - Parameter maxThreads: threads for one decode; 2 keeps a server's concurrent decodes from
    ///   oversubscribing its cores.
    package init(maxThreads: Int = 2) {
        self.maxThreads = maxThreads
    }

    /// An ISO-BMFF `ftyp` box whose major brand is `avif` or `avis`, or `mif1`/`msf1` listing `avif` or
    /// `avis` among the compatible brands within these bytes.
    package func canDecode(_ header: Data) -> Bool {
        AVIFSignature.matches(header)
    }

    static func failure(_ reason: String) -> TroveError {
        TroveError.decodingFailed(format: .avif, reason: reason)
    }

    /// Decodes the file's image, or the first `limits.maxFrames` images of a sequence (the rest are dropped;
    /// one kept image is a still). Sizes and the kept frames' bytes are checked against `limits` after the
    /// container is read and before any pixel is decoded; libavif is given the size limit for its parser.
    package func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
        try data.withUnsafeBytes { bytes in
            let decoder = try parse(bytes, limits: limits)
            let size = decoder.size, count = decoder.imageCount
            let crop = decoder.cleanAperture
            guard count > 0 else { throw Self.failure("the file holds no image") }
            let kept = limits.keptFrames(of: count)
            var frames: [AnimationFrame] = []
            var first: [UInt8] = []
            var colorDescription: ColorDescription?
            for index in 0..<kept {
                let image = try decoder.decodeNextImage()
                if index == 0 { colorDescription = Self.colorDescription(of: image.pointee) }
                // The AV1 frame must be what the container promised and the limits allowed.
                guard Int(image.pointee.width) == size.width, Int(image.pointee.height) == size.height else {
                    throw Self.failure(
                        "image \(index + 1) decodes to \(image.pointee.width)x\(image.pointee.height), "
                            + "but the container says \(size)")
                }
                var pixels = try AVIFPixels.rgba8(from: image)
                if let crop { pixels = AVIFCleanAperture.crop(pixels, width: size.width, to: crop) }
                if kept == 1 {
                    first = pixels
                } else {
                    frames.append(AnimationFrame(pixels: pixels, delay: try decoder.duration(ofImage: index)))
                }
            }
            // libavif 0.11 does not read a sequence's repetition count (1.0 does): sequences loop forever.
            let shown = decoder.croppedSize
            return Image(
                width: shown.width, height: shown.height, pixelFormat: .rgba8, bytesPerRow: shown.width * 4,
                pixels: frames.first?.pixels ?? first, sourceFormat: .avif, frames: frames,
                orientation: decoder.orientation, loopCount: 0, colorDescription: colorDescription)
        }
    }

    /// What the `colr` boxes say: an ICC profile, and CICP code points unless they are all "unspecified".
    static func colorDescription(of image: avifImage) -> ColorDescription? {
        var description = ColorDescription()
        if let icc = image.icc.data, image.icc.size > 0 {
            description.iccProfile = [UInt8](UnsafeBufferPointer(start: icc, count: image.icc.size))
        }
        let unspecified: UInt16 = 2
        if image.colorPrimaries != unspecified || image.transferCharacteristics != unspecified {
            description.cicp = ColorDescription.CICP(
                primaries: image.colorPrimaries, transfer: image.transferCharacteristics,
                matrix: image.matrixCoefficients, fullRange: image.yuvRange == AVIF_RANGE_FULL)
        }
        guard !description.isEmpty else { return nil }
        return image.yuvFormat == AVIF_PIXEL_FORMAT_YUV400 ? description : description.forColorSamples()
    }

    /// The TIFF structure of the file's Exif item, read with the container (no pixels); nil when none.
    package func exif(_ data: Data) -> [UInt8]? {
        data.withUnsafeBytes { bytes in
            guard let decoder = try? LibavifDecoder(bytes, limits: nil, maxThreads: maxThreads, readsExif: true),
                (try? decoder.parse()) != nil
            else { return nil }
            return decoder.exif
        }
    }

    /// The Exif item's TIFF structure and the XMP item's packet, read with the container (no pixels).
    package func embeddedMetadata(_ data: Data) -> EmbeddedMetadata {
        data.withUnsafeBytes { bytes in
            guard
                let decoder = try? LibavifDecoder(
                    bytes, limits: nil, maxThreads: maxThreads, readsExif: true, readsXMP: true),
                (try? decoder.parse()) != nil
            else { return EmbeddedMetadata() }
            return EmbeddedMetadata(exif: decoder.exif, xmp: decoder.xmp)
        }
    }

    /// Size (after the clean aperture's crop), frame count and orientation ('irot', 'imir') from the container,
    /// without decoding pixels (libavif's default limits apply).
    package func info(_ data: Data) throws -> ImageInfo? {
        try data.withUnsafeBytes { bytes in
            let decoder = try LibavifDecoder(bytes, limits: nil, maxThreads: maxThreads)
            try decoder.parse()
            let size = decoder.croppedSize
            return ImageInfo(
                format: .avif, width: size.width, height: size.height, frameCount: decoder.imageCount,
                orientation: decoder.orientation)
        }
    }

    /// A parsed decoder whose size, and kept frames' bytes, are within `limits`.
    private func parse(_ bytes: UnsafeRawBufferPointer, limits: DecodingLimits) throws -> LibavifDecoder {
        let decoder = try LibavifDecoder(bytes, limits: limits, maxThreads: maxThreads)
        do {
            try decoder.parse()
        } catch {
            // libavif's own limits refuse without the numbers. Parsing again at its defaults (still no pixels)
            // finds them, so an oversized file gets the same error as from the check below; a size over
            // libavif's defaults too is read from the container's boxes.
            let unlimited = try? LibavifDecoder(bytes, limits: nil, maxThreads: maxThreads)
            if let unlimited, (try? unlimited.parse()) != nil {
                try Self.check(unlimited, against: limits)
            } else if let declared = AVIFDeclaredSize.largest(in: bytes) {
                try limits.check(width: declared.width, height: declared.height)
            }
            throw error
        }
        try Self.check(decoder, against: limits)
        return decoder
    }

    private static func check(_ decoder: LibavifDecoder, against limits: DecodingLimits) throws {
        let size = decoder.size
        try limits.check(width: size.width, height: size.height)
        if decoder.imageCount > 1 {
            try limits.check(frames: decoder.imageCount, width: size.width, height: size.height)
        }
    }
}
