import CJPEGShim
import Foundation
import TroveCore

/// Decodes baseline and progressive JPEGs through libjpeg-turbo to RGBA8 (gray and CMYK/YCCK converted),
/// reading the EXIF orientation into `Image.orientation` without applying it.
public struct JPEGDecoder: ImageDecoder {
    public let name = "jpeg"
    public let format = ImageFormat.jpeg
    /// The most progressive scans accepted; real encoders write about ten.
    public var maxScans: Int

    public init(maxScans: Int = 500) {
        self.maxScans = maxScans
    }

    /// A start-of-image marker followed by another marker.
    public func canDecode(_ header: Data) -> Bool {
        header.starts(with: [0xFF, 0xD8, 0xFF])
    }

    static func failure(_ reason: String) -> TroveError {
        TroveError.decodingFailed(format: .jpeg, reason: reason)
    }

    public func decode(_ data: Data, limits: DecodingLimits) throws -> Image {
        try data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else {
                throw Self.failure("the file is empty")
            }
            // libjpeg's working memory (progressive coefficient buffers) is bounded by the same byte limit.
            guard let decoder = trove_jpeg_decoder_create(base, bytes.count, limits.maxDecodedBytes,
                                                          Int32(clamping: maxScans))
            else { throw Self.failure("out of memory starting libjpeg") }
            defer { trove_jpeg_decoder_destroy(decoder) }
            func lastError() -> TroveError {
                Self.failure(String(cString: trove_jpeg_decoder_error(decoder)))
            }

            var header = trove_jpeg_header()
            guard trove_jpeg_decoder_read_header(decoder, &header) == 0 else { throw lastError() }
            let width = Int(header.width), height = Int(header.height)
            try limits.check(width: width, height: height)
            let orientation = header.exif.map {
                ExifOrientationReader.orientation(in: UnsafeRawBufferPointer(start: $0, count: header.exif_length))
            } ?? .up

            let pixels = try [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, initialized in
                guard let out = buffer.baseAddress else { return }
                guard trove_jpeg_decoder_decode_rgba(decoder, out, buffer.count) == 0 else { throw lastError() }
                initialized = buffer.count
            }
            return Image(width: width, height: height, pixelFormat: .rgba8, bytesPerRow: width * 4,
                         pixels: pixels, sourceFormat: .jpeg, orientation: orientation)
        }
    }
}
