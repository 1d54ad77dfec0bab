import CAVIF
import TroveCore

/// Converts libavif's decoded YUV (any depth, any subsampling, alpha or not) to packed RGBA8.
enum AVIFPixels {
    /// A new straight-alpha RGBA8 buffer for `image`; libavif rescales 10- and 12-bit samples, upsamples
    /// chroma, un-premultiplies alpha if the file stored it premultiplied, and writes opaque alpha when the
    /// file has none.
    static func rgba8(from image: UnsafeMutablePointer<avifImage>) throws -> [UInt8] {
        let width = Int(image.pointee.width), height = Int(image.pointee.height)
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.depth = 8
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.alphaPremultiplied = AVIF_FALSE
        rgb.rowBytes = UInt32(width * 4)
        return try [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            rgb.pixels = base
            let result = avifImageYUVToRGB(image, &rgb)
            guard result == AVIF_RESULT_OK else {
                throw AVIFDecoder.failure("converting to RGBA: \(String(cString: avifResultToString(result)))")
            }
            initialized = buffer.count
        }
    }
}
