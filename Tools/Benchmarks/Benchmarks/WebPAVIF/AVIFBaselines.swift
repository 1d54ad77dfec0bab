import CLibAVIF
import Foundation

// libavif called directly, as avif.h documents it, for the AVIF baselines, with the settings Trove's AVIF
// plugin uses by default (two threads; for encoding speed 8 and a fixed quantizer).

/// `avifDecoderReadMemory`, then `avifImageYUVToRGB` into 8-bit RGBA that libavif allocates, freed here.
func decodeWithLibavif(_ data: Data, maxThreads: Int32) -> Int {
    data.withUnsafeBytes { bytes in
        guard let decoder = avifDecoderCreate(), let image = avifImageCreateEmpty() else { fatalError("out of memory") }
        defer {
            avifImageDestroy(image)
            avifDecoderDestroy(decoder)
        }
        decoder.pointee.maxThreads = maxThreads
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let read = avifDecoderReadMemory(decoder, image, base, bytes.count)
        guard read == AVIF_RESULT_OK else { fatalError("libavif: \(String(cString: avifResultToString(read)))") }
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.depth = 8
        avifRGBImageAllocatePixels(&rgb)
        defer { avifRGBImageFreePixels(&rgb) }
        let converted = avifImageYUVToRGB(image, &rgb)
        guard converted == AVIF_RESULT_OK else {
            fatalError("libavif: \(String(cString: avifResultToString(converted)))")
        }
        return Int(rgb.width) * Int(rgb.height)
    }
}

/// An opaque RGBA image as 8-bit 4:2:0 (`avifImageRGBToYUV`, alpha ignored) through `avifEncoderWrite` with
/// `quantizer` as both the minimum and maximum (constant quality), `speed`, `maxThreads` and auto tiling.
func encodeWithLibavif(
    rgba: [UInt8], width: Int, height: Int, quantizer: Int32, speed: Int32, maxThreads: Int32
) -> Data {
    guard let image = avifImageCreate(UInt32(width), UInt32(height), 8, AVIF_PIXEL_FORMAT_YUV420) else {
        fatalError("out of memory")
    }
    defer { avifImageDestroy(image) }
    var rgb = avifRGBImage()
    avifRGBImageSetDefaults(&rgb, image)
    rgb.format = AVIF_RGB_FORMAT_RGBA
    rgb.depth = 8
    rgb.ignoreAlpha = AVIF_TRUE
    rgb.rowBytes = UInt32(width * 4)
    let converted = rgba.withUnsafeBufferPointer { buffer in
        rgb.pixels = UnsafeMutablePointer(mutating: buffer.baseAddress)  // only read when converting to YUV
        return avifImageRGBToYUV(image, &rgb)
    }
    guard converted == AVIF_RESULT_OK else { fatalError("libavif: \(String(cString: avifResultToString(converted)))") }
    guard let encoder = avifEncoderCreate() else { fatalError("out of memory") }
    defer { avifEncoderDestroy(encoder) }
    encoder.pointee.maxThreads = maxThreads
    encoder.pointee.speed = speed
    encoder.pointee.minQuantizer = quantizer
    encoder.pointee.maxQuantizer = quantizer
    encoder.pointee.autoTiling = AVIF_TRUE
    var output = avifRWData()
    defer { avifRWDataFree(&output) }
    let written = avifEncoderWrite(encoder, image, &output)
    guard written == AVIF_RESULT_OK, let bytes = output.data else {
        fatalError("libavif: \(String(cString: avifResultToString(written)))")
    }
    return Data(bytes: bytes, count: output.size)
}
