import CLibJXL
import Foundation

// libjxl called directly, as decode.h documents it, for the JPEG XL baseline, with the settings Trove's JXL
// plugin uses by default: a two-thread parallel runner, the orientation kept, alpha unpremultiplied, RGBA8 out.

/// Decodes a still to 8-bit RGBA in a buffer of its own; returns the pixel count.
func decodeWithLibjxl(_ data: Data, threads: Int) -> Int {
    guard let decoder = JxlDecoderCreate(nil) else { fatalError("out of memory") }
    defer { JxlDecoderDestroy(decoder) }
    let runner = threads > 1 ? JxlThreadParallelRunnerCreate(nil, threads) : nil
    defer { if let runner { JxlThreadParallelRunnerDestroy(runner) } }
    if let runner {
        guard JxlDecoderSetParallelRunner(decoder, JxlThreadParallelRunner, runner) == JXL_DEC_SUCCESS else {
            fatalError("libjxl: no parallel runner")
        }
    }
    let events = Int32(JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_FULL_IMAGE.rawValue)
    guard JxlDecoderSubscribeEvents(decoder, events) == JXL_DEC_SUCCESS,
        JxlDecoderSetKeepOrientation(decoder, JXL_TRUE) == JXL_DEC_SUCCESS,
        JxlDecoderSetUnpremultiplyAlpha(decoder, JXL_TRUE) == JXL_DEC_SUCCESS
    else { fatalError("libjxl: decoder settings refused") }
    var format = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
    return data.withUnsafeBytes { bytes in
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        guard JxlDecoderSetInput(decoder, base, bytes.count) == JXL_DEC_SUCCESS else { fatalError("libjxl: input") }
        JxlDecoderCloseInput(decoder)
        var pixels: [UInt8] = []
        var count = 0
        while true {
            switch JxlDecoderProcessInput(decoder) {
            case JXL_DEC_BASIC_INFO:
                var info = JxlBasicInfo()
                guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else { fatalError("libjxl: info") }
                count = Int(info.xsize) * Int(info.ysize)
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                pixels = [UInt8](repeating: 0, count: count * 4)
                let set = pixels.withUnsafeMutableBytes { buffer in
                    JxlDecoderSetImageOutBuffer(decoder, &format, buffer.baseAddress, buffer.count)
                }
                guard set == JXL_DEC_SUCCESS else { fatalError("libjxl: output buffer") }
            case JXL_DEC_FULL_IMAGE:
                continue
            case JXL_DEC_SUCCESS:
                return pixels.count / 4
            default:
                fatalError("libjxl: the file did not decode")
            }
        }
    }
}
