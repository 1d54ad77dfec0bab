import CWebP
import TroveCore

/// RGBA8 pixels handed to libwebp as a `WebPPicture`, which the encoders then consume.
enum WebPPictureImport {
    /// Runs `body` with a picture holding a copy of `pixels` (tightly packed RGBA8, `width * height * 4`
    /// bytes), freed afterwards. `argb` keeps the picture in libwebp's ARGB form, which lossless encoding
    /// and `WebPAnimEncoder` need to stay exact; otherwise libwebp converts to YUV on import, as for lossy.
    static func withPicture<T>(
        width: Int, height: Int, pixels: [UInt8], argb: Bool,
        _ body: (inout WebPPicture) throws -> T
    ) throws -> T {
        guard pixels.count >= width * height * 4 else {
            throw WebPErrors.encoding(
                "a \(width)x\(height) frame needs \(width * height * 4) bytes of RGBA, "
                    + "it has \(pixels.count)")
        }
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else {
            throw WebPErrors.encoding("the libwebp library does not match the headers Trove was built with")
        }
        picture.width = Int32(width)
        picture.height = Int32(height)
        picture.use_argb = argb ? 1 : 0
        defer { WebPPictureFree(&picture) }
        let imported = pixels.withUnsafeBufferPointer {
            WebPPictureImportRGBA(&picture, $0.baseAddress, Int32(width * 4))
        }
        guard imported != 0 else { throw WebPErrors.encoding(picture.error_code) }
        return try body(&picture)
    }
}
