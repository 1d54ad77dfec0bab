import CWebP
import TroveCore

/// libwebp's return codes as `TroveError`s with reasons a person can act on.
enum WebPErrors {
    static func decoding(_ reason: String) -> TroveError {
        .decodingFailed(format: .webp, reason: reason)
    }

    static func encoding(_ reason: String) -> TroveError {
        .encodingFailed(format: .webp, reason: reason)
    }

    /// Why `WebPDecode` / `WebPGetFeatures` stopped.
    static func decoding(_ status: VP8StatusCode) -> TroveError {
        let reason =
            switch status {
            case VP8_STATUS_NOT_ENOUGH_DATA: "the file ends before the image data does (it is truncated)"
            case VP8_STATUS_BITSTREAM_ERROR: "libwebp found the bitstream corrupt"
            case VP8_STATUS_UNSUPPORTED_FEATURE: "the file uses a feature libwebp does not support"
            case VP8_STATUS_OUT_OF_MEMORY: "libwebp ran out of memory"
            case VP8_STATUS_INVALID_PARAM: "libwebp refused the decoding parameters"
            default: "libwebp failed with status \(status.rawValue)"
            }
        return decoding(reason)
    }

    /// Why `WebPEncode` stopped, from `WebPPicture.error_code`.
    static func encoding(_ code: WebPEncodingError) -> TroveError {
        let reason =
            switch code {
            case VP8_ENC_ERROR_OUT_OF_MEMORY, VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: "libwebp ran out of memory"
            case VP8_ENC_ERROR_INVALID_CONFIGURATION: "libwebp refused the encoder configuration"
            case VP8_ENC_ERROR_BAD_DIMENSION: "the image size is not one WebP can store (1...16383 per side)"
            case VP8_ENC_ERROR_PARTITION0_OVERFLOW, VP8_ENC_ERROR_PARTITION_OVERFLOW:
                "the lossy bitstream overflowed its partition limit (try a lower quality)"
            case VP8_ENC_ERROR_FILE_TOO_BIG: "the encoded file would be over WebP's 4 GiB limit"
            case VP8_ENC_ERROR_BAD_WRITE: "libwebp could not write its output"
            default: "libwebp failed with error \(code.rawValue)"
            }
        return encoding(reason)
    }
}
