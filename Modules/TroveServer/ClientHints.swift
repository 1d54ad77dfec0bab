import Foundation
import HTTPTypes
import TroveImgproxy

/// The client hints imgproxy reads when they are enabled: the device pixel ratio (`Sec-CH-DPR`, else `DPR`)
/// and the intended width in physical pixels (`Sec-CH-Width`, else `Width`). They become a URL's default dpr
/// and width, which its own options override.
struct ClientHints: Sendable, Equatable {
    /// The largest DPR a hint may give (imgproxy's, and the `dpr` option's bound).
    static let maximumDPR = 8.0
    /// The names the answer varies by when hints are read.
    static let varyNames = "Sec-CH-DPR, DPR, Sec-CH-Width, Width"

    /// The hinted DPR, when one was sent that is more than 0 and at most `maximumDPR`.
    var dpr: Double?
    /// The hinted width in physical pixels, when a positive whole number was sent.
    var width: Int?

    /// The hints in `headers`; unreadable or out-of-range values count as not sent.
    init(headers: HTTPFields) {
        self.init(
            dprText: headers[Self.secCHDPRName] ?? headers[Self.dprName],
            widthText: headers[Self.secCHWidthName] ?? headers[Self.widthName])
    }

    /// The hints in the texts of `Sec-CH-DPR` (else `DPR`) and `Sec-CH-Width` (else `Width`).
    init(dprText: String?, widthText: String?) {
        if let text = dprText, let value = Double(text.trimmingCharacters(in: .whitespaces)), value > 0,
            value <= Self.maximumDPR
        {
            dpr = value
        }
        if let text = widthText, let value = Int(text.trimmingCharacters(in: .whitespaces)), value > 0 {
            width = min(value, 1 << 20)
        }
    }

    init(dpr: Double? = nil, width: Int? = nil) {
        self.dpr = dpr
        self.width = width
    }

    /// Whether no usable hint was sent.
    var isEmpty: Bool { dpr == nil && width == nil }

    /// What the hints add to a result's keys: equal hints, equal text.
    var key: String { "ch:\(dpr.map { "\($0)" } ?? "-"):\(width.map(String.init) ?? "-")" }

    /// A URL's defaults with the hints applied: the DPR as `dpr`, and the physical width divided by the
    /// DPR (rounded) as `width`, which the URL's dpr multiplies back. A hinted width past `maxSide` is
    /// taken as `maxSide`: a hint may not make a request the server refuses.
    func applied(to defaults: ImgproxyOptions, maxSide: Int) -> ImgproxyOptions {
        var defaults = defaults
        if let dpr { defaults.dpr = dpr }
        if let width {
            defaults.width = max(1, Int((Double(min(width, maxSide)) / defaults.dpr).rounded(.down)))
        }
        return defaults
    }

    private static let secCHDPRName = HTTPField.Name("Sec-CH-DPR")!
    private static let dprName = HTTPField.Name("DPR")!
    private static let secCHWidthName = HTTPField.Name("Sec-CH-Width")!
    private static let widthName = HTTPField.Name("Width")!
}
