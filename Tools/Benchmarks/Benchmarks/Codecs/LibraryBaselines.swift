import CLibJPEG
import CPNG
import Foundation

// The C libraries called directly, as plainly as their documentation shows, for the baselines.

/// libpng's simplified API: the whole image as 8-bit RGBA in one buffer.
func decodeWithLibpng(_ data: Data) -> [UInt8] {
    data.withUnsafeBytes { bytes in
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_memory(&image, bytes.baseAddress, bytes.count) != 0 else {
            fatalError("libpng could not read the header")
        }
        image.format = UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)  // PNG_FORMAT_RGBA
        let count = Int(image.width) * Int(image.height) * 4
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard png_image_finish_read(&image, nil, buffer.baseAddress, 0, nil) != 0 else {
                fatalError("libpng could not decode")
            }
            initialized = count
        }
        png_image_free(&image)
        return pixels
    }
}

/// libpng's simplified write API into memory: 8-bit RGB (`rgb` holds width * height * 3 bytes), libpng's default
/// compression and filters. The buffer is sized for incompressible data plus room for the chunks; when libpng
/// still asks for more it says how much, and the write is done again into that (never, for these inputs).
func encodeWithLibpng(rgb: [UInt8], width: Int, height: Int) -> [UInt8] {
    var image = png_image()
    image.version = UInt32(PNG_IMAGE_VERSION)
    image.width = UInt32(width)
    image.height = UInt32(height)
    image.format = UInt32(PNG_FORMAT_FLAG_COLOR)  // PNG_FORMAT_RGB
    let dataSize = (width * 3 + 1) * height
    var capacity = dataSize + (dataSize / 8192 + 1) * 17 + 1024
    while true {
        var written = capacity
        var ok: Int32 = 0
        let output = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            ok = rgb.withUnsafeBytes { pixels in
                png_image_write_to_memory(&image, buffer.baseAddress, &written, 0, pixels.baseAddress, 0, nil)
            }
            initialized = ok != 0 ? written : 0
        }
        if ok != 0 { return output }
        guard written > capacity else {
            let message = withUnsafeBytes(of: image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            fatalError("libpng could not encode: \(message)")
        }
        capacity = written
    }
}

/// libjpeg-turbo with its default error manager (the inputs are known to be valid) into RGBA rows.
func decodeWithLibjpeg(_ data: Data) -> [UInt8] {
    data.withUnsafeBytes { bytes in
        var errors = jpeg_error_mgr()
        var info = jpeg_decompress_struct()
        info.err = jpeg_std_error(&errors)
        jpeg_CreateDecompress(&info, JPEG_LIB_VERSION, MemoryLayout<jpeg_decompress_struct>.size)
        defer { jpeg_destroy_decompress(&info) }
        jpeg_mem_src(&info, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt(bytes.count))
        _ = jpeg_read_header(&info, 1)
        info.out_color_space = JCS_EXT_RGBA
        _ = jpeg_start_decompress(&info)
        let rowBytes = Int(info.output_width) * 4
        let height = Int(info.output_height)
        let pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * height) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            while info.output_scanline < info.output_height {
                var row: JSAMPROW? = base + Int(info.output_scanline) * rowBytes
                _ = jpeg_read_scanlines(&info, &row, 1)
            }
            initialized = rowBytes * height
        }
        _ = jpeg_finish_decompress(&info)
        return pixels
    }
}
