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
