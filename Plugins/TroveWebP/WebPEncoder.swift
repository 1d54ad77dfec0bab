import CWebP
import Foundation
import TroveCore

/// Encodes RGBA8 (or gray, converted) images as WebP through libwebp: lossy at `EncodingOptions.quality`
/// (0...1 is libwebp's 0...100), or lossless when `EncodingOptions.lossless` is set (effort from
/// `compressionLevel` 0...9, RGB under transparent pixels kept so the round trip is exact). An image with
/// more than one frame becomes an animated WebP with its frames' delays and its loop count.
/// `EncodingOptions.speed`, when set, picks libwebp's method (speed 0 is method 6, the slowest; 10 is 0).
/// An image that still carries its source's ICC profile (the colour stage kept it) gets it in an ICCP chunk,
/// and its copyright notice in EXIF and "XMP " chunks.
package struct WebPEncoder: ImageEncoder {
    /// The registry name, "webp".
    package let name = "webp"
    /// `.webp`.
    package let format = ImageFormat.webp

    /// The largest side WebP can store.
    static let maxDimension = 16383

    /// An encoder; every setting comes from `EncodingOptions`.
    package init() {}

    /// Encodes a still image, or an animation when `image.frames` holds more than one frame.
    package func encode(_ image: Image, options: EncodingOptions) throws -> Data {
        let encoded = try encodePixels(image, options: options)
        let chunks = WebPMetadataChunks.chunks(for: image)
        return chunks.isEmpty ? encoded : try WebPMetadataChunks.setting(chunks, in: encoded)
    }

    /// The pixels as a WebP file, untagged.
    private func encodePixels(_ image: Image, options: EncodingOptions) throws -> Data {
        try Self.checkSize(width: image.width, height: image.height)
        let rgba = image.convertedToRGBA8()
        var config = try Self.configuration(for: options)
        if rgba.frames.count > 1 {
            return try WebPAnimationEncoding.encode(rgba, config: config)
        }
        return try WebPPictureImport.withPicture(
            width: rgba.width, height: rgba.height, pixels: rgba.pixels,
            argb: config.lossless != 0
        ) { picture in try Self.encode(&picture, config: &config) }
    }

    /// Throws `encodingFailed`, naming the limit, for a side outside 1...`maxDimension`.
    static func checkSize(width: Int, height: Int) throws {
        guard (1...maxDimension).contains(width), (1...maxDimension).contains(height) else {
            throw WebPErrors.encoding("WebP sides must be 1...\(maxDimension) pixels; this image is \(width)x\(height)")
        }
    }

    /// A still picture (RGBA or YUV) as a WebP file, untagged.
    static func encode(_ picture: inout WebPPicture, config: inout WebPConfig) throws -> Data {
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        picture.writer = WebPMemoryWrite
        let encoded = withUnsafeMutablePointer(to: &writer) { writerPointer in
            picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
            defer { picture.custom_ptr = nil }
            return WebPEncode(&config, &picture)
        }
        guard encoded != 0, let bytes = writer.mem else { throw WebPErrors.encoding(picture.error_code) }
        return Data(bytes: bytes, count: writer.size)
    }

    /// libwebp's configuration for these options, validated.
    static func configuration(for options: EncodingOptions) throws -> WebPConfig {
        var config = WebPConfig()
        let quality = options.quality.isFinite ? Float(min(max(options.quality, 0), 1) * 100) : 85
        guard WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, quality) != 0 else {
            throw WebPErrors.encoding("the libwebp library does not match the headers Trove was built with")
        }
        if options.lossless {
            guard WebPConfigLosslessPreset(&config, Int32(min(max(options.compressionLevel, 0), 9))) != 0 else {
                throw WebPErrors.encoding("libwebp refused lossless level \(options.compressionLevel)")
            }
            // Without this libwebp may rewrite the colour of fully transparent pixels to compress better.
            config.exact = 1
        }
        if let speed = options.speed {
            config.method = Int32(6 - (Double(min(max(speed, 0), 10)) * 0.6).rounded())
        }
        guard WebPValidateConfig(&config) != 0 else {
            throw WebPErrors.encoding("libwebp refused the encoder configuration")
        }
        return config
    }
}
