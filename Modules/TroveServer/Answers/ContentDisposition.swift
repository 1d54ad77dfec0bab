import Foundation
import Trove

/// imgproxy's `Content-Disposition`: `inline` (or `attachment` with `return_attachment`) and a file name,
/// the URL's `filename` or else the source URL's last path segment without its extension, with the
/// result's extension.
enum ContentDisposition {
    static func value(filename: String?, source: URL, format: ImageFormat, attachment: Bool) -> String {
        var stem = filename ?? ""
        if stem.isEmpty {
            let last = source.lastPathComponent
            stem = last == "/" ? "" : (last as NSString).deletingPathExtension
        }
        if stem.isEmpty { stem = "image" }
        let name = format.fileExtension.isEmpty ? stem : stem + "." + format.fileExtension
        let kind = attachment ? "attachment" : "inline"
        // The quoted form for every client; RFC 6266's filename* carries non-ASCII names exactly.
        let ascii = String(
            name.unicodeScalars.map { scalar -> Character in
                guard scalar.isASCII, scalar.value >= 0x20, scalar.value != 0x7F else { return "_" }
                return Character(scalar)
            })
        let quoted = ascii.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        guard ascii != name else { return "\(kind); filename=\"\(quoted)\"" }
        let encoded = name.addingPercentEncoding(withAllowedCharacters: attrChar) ?? quoted
        return "\(kind); filename=\"\(quoted)\"; filename*=UTF-8''\(encoded)"
    }

    /// RFC 5987 attr-char: what may stand unescaped in `filename*`.
    private static let attrChar = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&+-.^_`|~")
}
