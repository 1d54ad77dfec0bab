import CJPEGShim
import Foundation
import TroveCore

/// Encodes RGBA8 or gray images as baseline JPEG through libjpeg-turbo. JPEG has no alpha: an image with
/// transparent pixels is first laid over white, as imgproxy and `trove serve` flatten it, so a pixel's hidden
/// colour under alpha 0 never shows.
/// `EncodingOptions.quality` 0...1 maps to libjpeg's 1...100. An image that still carries its source's ICC
/// profile (the colour stage kept it) gets it back in APP2 markers, and its copyright notice in APP1 EXIF,
/// APP1 XMP and APP13 IPTC-IIM.
package struct JPEGEncoder: ImageEncoder {
    /// The registry name, "jpeg".
    package let name = "jpeg"
    /// `.jpeg`.
    package let format = ImageFormat.jpeg

    /// The JPEG encoder; its only setting comes per call (`EncodingOptions.quality`).
    package init() {}

    /// libjpeg's quality scale (1...100) for an `EncodingOptions.quality` (0...1, clamped).
    static func libjpegQuality(_ quality: Double) -> Int32 {
        guard quality.isFinite else { return 85 }
        return Int32(1 + (min(max(quality, 0), 1) * 99).rounded())
    }

    /// Writes a baseline JPEG at `options.quality` (other options are ignored; animation frames are not
    /// written). Throws `encodingFailed` when a side is outside 1...65500 pixels or libjpeg-turbo fails.
    package func encode(_ image: Image, options: EncodingOptions) throws -> Data {
        let image = image.flattened(red: 255, green: 255, blue: 255)
        guard image.width > 0, image.height > 0, image.width <= 65_500, image.height <= 65_500 else {
            throw TroveError.encodingFailed(
                format: .jpeg,
                reason: "JPEG sides must be 1...65500 pixels; "
                    + "this image is \(image.width)x\(image.height)")
        }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            trove_jpeg_encode(
                pixels.baseAddress, Int32(image.width), Int32(image.height), image.bytesPerRow,
                Int32(image.pixelFormat.bytesPerPixel), Self.libjpegQuality(options.quality),
                &output, &size, &message, message.count)
        }
        defer { trove_jpeg_free(output) }
        guard status == 0, let output else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw TroveError.encodingFailed(format: .jpeg, reason: reason)
        }
        return try tagged(Data(bytes: output, count: Int(size)), for: image)
    }

    /// libjpeg-turbo's output with the markers `image` calls for inserted after SOI: its orientation and
    /// copyright notice, and a kept profile. Throws when a profile does not fit in APP2 markers.
    func tagged(_ encoded: Data, for image: Image) throws -> Data {
        var segments: [UInt8] = []
        // EXIF first (readers look for it right after SOI and JFIF): an orientation the pipeline kept and the
        // notice. Then XMP and IPTC-IIM for the fields EXIF has no tag for and for readers that look only there.
        // A block too long for one marker is left out rather than failing the image.
        segments +=
            ExifBlock.tiff(for: image.copyright, orientation: image.orientation).flatMap(JPEGSegments.exifMarker)
            ?? []
        if let notice = image.copyright {
            segments += XMPRights.packet(for: notice).flatMap(JPEGSegments.xmpMarker) ?? []
            segments += IPTCRecords.datasets(for: notice).flatMap(JPEGSegments.iptcMarker) ?? []
        }
        if let profile = image.colorDescription?.embeddableProfile(for: image.pixelFormat) {
            guard let markers = JPEGSegments.profileMarkers(profile) else {
                throw TroveError.encodingFailed(
                    format: .jpeg, reason: "the \(profile.count)-byte ICC profile does not fit in 255 APP2 markers")
            }
            segments += markers
        }
        guard !segments.isEmpty else { return encoded }
        guard let tagged = JPEGSegments.inserting(segments, into: encoded) else {
            throw TroveError.encodingFailed(format: .jpeg, reason: "libjpeg-turbo's output does not start with SOI")
        }
        return tagged
    }
}
