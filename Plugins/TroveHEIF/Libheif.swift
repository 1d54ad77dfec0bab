import CHEIF
import Foundation
import TroveCore

/// libheif's process-wide set-up and its error structs turned into Trove's errors.
enum Libheif {
    /// `heif_init` once per process, before any other call (it registers the built-in codecs; libheif
    /// counts the calls, and the process never needs it undone).
    static let initialized: Bool = {
        heif_init(nil)
        return true
    }()

    /// Whether this libheif can write HEVC (Debian's links x265; a build without it decodes only).
    static var hasHEVCEncoder: Bool {
        _ = initialized
        return heif_have_encoder_for_format(heif_compression_HEVC) != 0
    }

    /// Throws `decodingFailed` naming `step` and libheif's message when `error` is not success.
    static func check(_ error: heif_error, _ step: String) throws {
        guard error.code != heif_error_Ok else { return }
        throw HEIFDecoder.failure("\(step): \(message(error))")
    }

    /// libheif's message (some end in a newline), or its error code when the message is empty.
    static func message(_ error: heif_error) -> String {
        let text = (error.message.map { String(cString: $0) } ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "libheif error \(error.code.rawValue).\(error.subcode.rawValue)" : text
    }
}
