import CJPEGShim
import Foundation
import TroveCore

extension JPEGEncoder: PlanarImageEncoder {
    /// Always: a JPEG is 4:2:0 YCbCr whatever it is given.
    package func takesPlanes(_ options: EncodingOptions) -> Bool { true }

    /// Writes a baseline 4:2:0 JPEG from `planes` through `jpeg_write_raw_data` (no colour conversion, no
    /// downsampling), with the tables, quality and markers `encode(_:options:)` gives an RGBA image, the
    /// markers from `metadata`. Throws `encodingFailed` when a side is outside 1...65500 pixels or libjpeg fails.
    package func encode(_ planes: YCbCrPlanes, metadata: Image, options: EncodingOptions) throws -> Data {
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var message = [CChar](repeating: 0, count: 256)
        let widths: [Int32] = [
            Int32(clamping: planes.width), Int32(clamping: planes.chromaWidth),
            Int32(clamping: planes.chromaWidth)
        ]
        let heights: [Int32] = [
            Int32(clamping: planes.height), Int32(clamping: planes.chromaHeight),
            Int32(clamping: planes.chromaHeight)
        ]
        let strides = [planes.width, planes.chromaWidth, planes.chromaWidth]
        let status = planes.y.withUnsafeBufferPointer { y in
            planes.cb.withUnsafeBufferPointer { cb in
                planes.cr.withUnsafeBufferPointer { cr in
                    let pointers: [UnsafePointer<UInt8>?] = [y.baseAddress, cb.baseAddress, cr.baseAddress]
                    return trove_jpeg_encode_planes(
                        pointers, strides, widths, heights, Self.libjpegQuality(options.quality), &output, &size,
                        &message, message.count)
                }
            }
        }
        defer { trove_jpeg_free(output) }
        guard status == 0, let output else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw TroveError.encodingFailed(format: .jpeg, reason: reason)
        }
        return try tagged(Data(bytes: output, count: Int(size)), for: metadata)
    }
}
