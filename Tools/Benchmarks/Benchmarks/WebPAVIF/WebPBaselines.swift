import CLibWebP
import Foundation

// libwebp called directly, as its headers document it, for the WebP baselines. Each returns the encoded bytes
// or a pixel count (the decoded buffer is freed), so nothing is optimised away.

/// `WebPDecodeRGBA`: the whole still as RGBA in a buffer libwebp allocates, freed here.
func decodeWithLibwebp(_ data: Data) -> Int {
    data.withUnsafeBytes { bytes in
        var width: Int32 = 0
        var height: Int32 = 0
        guard
            let pixels = WebPDecodeRGBA(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &width, &height)
        else { fatalError("libwebp could not decode") }
        WebPFree(pixels)
        return Int(width) * Int(height)
    }
}

/// `WebPAnimDecoder` with RGBA output: every frame composed on the canvas and copied out, since libwebp reuses
/// the canvas for the next frame.
func decodeAnimationWithLibwebp(_ data: Data) -> [[UInt8]] {
    data.withUnsafeBytes { bytes in
        var webpData = WebPData(bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else { fatalError("libwebp version mismatch") }
        // MODE_RGBA (1): Swift does not find that constant by name here, presumably because the plugin's CWebP
        // module declares the same header's enum too.
        options.color_mode = WEBP_CSP_MODE(rawValue: 1)
        guard let decoder = WebPAnimDecoderNew(&webpData, &options) else {
            fatalError("libwebp could not open the animation")
        }
        defer { WebPAnimDecoderDelete(decoder) }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else { fatalError("libwebp could not read the animation") }
        let frameBytes = Int(info.canvas_width) * Int(info.canvas_height) * 4
        var frames: [[UInt8]] = []
        while WebPAnimDecoderHasMoreFrames(decoder) != 0 {
            var canvas: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
                fatalError("libwebp could not decode a frame")
            }
            frames.append(Array(UnsafeBufferPointer(start: canvas, count: frameBytes)))
        }
        return frames
    }
}

/// `WebPEncodeRGBA` at `quality` (0...100): libwebp's default preset, as Trove configures a lossy encode.
func encodeLossyWithLibwebp(rgba: [UInt8], width: Int, height: Int, quality: Float) -> Data {
    var output: UnsafeMutablePointer<UInt8>?
    let size = WebPEncodeRGBA(rgba, Int32(width), Int32(height), Int32(width * 4), quality, &output)
    guard size > 0, let output else { fatalError("libwebp could not encode") }
    defer { WebPFree(output) }
    return Data(bytes: output, count: size)
}

/// The advanced API for lossless: `WebPConfigLosslessPreset(level)` and `exact` (RGB under transparent pixels
/// kept), the settings Trove's encoder uses for `lossless` at compression level 6, written to memory.
func encodeLosslessWithLibwebp(rgba: [UInt8], width: Int, height: Int, level: Int32) -> Data {
    var config = WebPConfig()
    guard WebPConfigInit(&config) != 0, WebPConfigLosslessPreset(&config, level) != 0 else {
        fatalError("libwebp refused the configuration")
    }
    config.exact = 1
    var picture = WebPPicture()
    guard WebPPictureInit(&picture) != 0 else { fatalError("libwebp version mismatch") }
    picture.use_argb = 1
    picture.width = Int32(width)
    picture.height = Int32(height)
    guard WebPPictureImportRGBA(&picture, rgba, Int32(width * 4)) != 0 else { fatalError("out of memory") }
    defer { WebPPictureFree(&picture) }
    var writer = WebPMemoryWriter()
    WebPMemoryWriterInit(&writer)
    defer { WebPMemoryWriterClear(&writer) }
    picture.writer = WebPMemoryWrite
    let encoded = withUnsafeMutablePointer(to: &writer) { writerPointer in
        picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
        return WebPEncode(&config, &picture)
    }
    guard encoded != 0, let bytes = writer.mem else { fatalError("libwebp could not encode: \(picture.error_code)") }
    return Data(bytes: bytes, count: writer.size)
}
