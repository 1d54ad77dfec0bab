import CHEIF
import TroveCore

/// Decodes one image handle (the primary image or a thumbnail) to packed straight-alpha RGBA8.
enum HEIFPixels {
    /// The handle's pixels with libheif's rotation, mirroring and crop applied. libheif upsamples chroma,
    /// converts YCbCr to RGB by the file's matrix, reduces 10- and 12-bit samples to 8 bits, and writes
    /// opaque alpha when the image has none; premultiplied alpha is undone here.
    static func rgba8(_ handle: OpaquePointer, expected size: PixelSize) throws -> [UInt8] {
        guard let options = heif_decoding_options_alloc() else {
            throw HEIFDecoder.failure("out of memory for libheif's decoding options")
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.ignore_transformations = 0
        options.pointee.convert_hdr_to_8bit = 1
        var decoded: OpaquePointer?
        try Libheif.check(
            heif_decode_image(handle, &decoded, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, options),
            "decoding the image")
        guard let image = decoded else { throw HEIFDecoder.failure("decoding the image: libheif returned none") }
        defer { heif_image_release(image) }

        let width = Int(heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(heif_image_get_height(image, heif_channel_interleaved))
        // The coded picture must be what the container promised (and the limits allowed).
        guard width == size.width, height == size.height else {
            throw HEIFDecoder.failure("the image decodes to \(width)x\(height), but the container says \(size)")
        }
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
            Int(stride) >= width * 4
        else {
            throw HEIFDecoder.failure("decoding the image: libheif gave no RGBA plane")
        }
        let rowBytes = width * 4, planeStride = Int(stride)
        var pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            for y in 0..<height {
                (base + y * rowBytes).update(from: plane + y * planeStride, count: rowBytes)
            }
            initialized = rowBytes * height
        }
        if heif_image_is_premultiplied_alpha(image) != 0 { unpremultiply(&pixels) }
        return pixels
    }

    /// Divides each colour by its alpha, rounding, so the pixels are straight alpha.
    static func unpremultiply(_ pixels: inout [UInt8]) {
        for i in stride(from: 0, to: pixels.count, by: 4) {
            let alpha = Int(pixels[i + 3])
            guard alpha != 0 && alpha != 255 else { continue }
            for c in i..<i + 3 {
                pixels[c] = UInt8(min(255, (Int(pixels[c]) * 255 + alpha / 2) / alpha))
            }
        }
    }
}
