import Foundation
import Trove

/// Picks the output format for a URL that names none, from the request's `Accept` header: AVIF, then WebP,
/// then JPEG XL, when the client lists it explicitly and an encoder for it is registered; else nil, meaning
/// the source's own format. As imgproxy does, `image/*` and `*/*` do not count as support for AVIF or WebP
/// (browsers send them for every image), and a type listed with `q=0` is refused.
package enum FormatNegotiation {
    /// Formats tried in order of preference.
    package static let preferenceOrder: [ImageFormat] = [.avif, .webp, .jxl]

    /// The preferred format both sides support, or nil to keep the source's format. Answers that depend on
    /// this must carry `Vary: Accept`.
    package static func preferredFormat(accept: String?, available: Set<ImageFormat>) -> ImageFormat? {
        guard let accept else { return nil }
        let accepted = acceptedMediaTypes(accept)
        return preferenceOrder.first { available.contains($0) && accepted.contains($0.mediaType) }
    }

    /// The media types listed explicitly with a q above 0, lowercased; one refused with `q=0` anywhere in
    /// the header is left out.
    static func acceptedMediaTypes(_ header: String) -> Set<String> {
        var accepted = Set<String>(), refused = Set<String>()
        for range in header.split(separator: ",") {
            let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first, !type.isEmpty else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                if pair.count == 2, pair[0] == "q" {
                    // An unreadable q is treated as 0: do not guess support.
                    quality = Double(pair[1]).map { min(max($0, 0), 1) } ?? 0
                }
            }
            if quality > 0 { accepted.insert(type) } else { refused.insert(type) }
        }
        return accepted.subtracting(refused)
    }
}
