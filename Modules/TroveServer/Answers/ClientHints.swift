import Foundation
import HTTPTypes
import TroveImgproxy

/// The client hints imgproxy reads when they are enabled: the device pixel ratio (`Sec-CH-DPR`, else `DPR`)
/// and the intended width in physical pixels (`Sec-CH-Width`, else `Width`). They become a URL's default dpr
/// and width, which its own options override.
///
/// Each hint is rounded up onto a bounded set of steps, as browsers bucket the sizes they ask for, so hints
/// cannot make an unbounded number of results (each its own transform and cache entry) from one URL:
/// - DPR to the next quarter: 1, 1.25, 1.5, ... 8 (32 steps).
/// - Width to the next of 16 steps per doubling: exact to 32 px, then multiples of 2 px to 64, 4 px to 128,
///   8 px to 256, 16 px to 512, 32 px to 1024, and so on, so a step is at most 1/16 (6.25%) wider than asked;
///   past the server's `--max-result-dimension` the width is that dimension. The default 8192 allows 160
///   widths.
struct ClientHints: Sendable, Equatable {
    /// The largest DPR a hint may give (imgproxy's, and the `dpr` option's bound).
    static let maximumDPR = 8.0
    /// The names the answer varies by when hints are read.
    static let varyNames = "Sec-CH-DPR, DPR, Sec-CH-Width, Width"

    /// The hinted DPR on its step, when one was sent that is more than 0 and at most `maximumDPR`.
    var dpr: Double?
    /// The hinted width in physical pixels on its step, when a positive whole number was sent.
    var width: Int?

    /// The hints in `headers`; unreadable or out-of-range values count as not sent.
    init(headers: HTTPFields, maxWidth: Int) {
        self.init(
            dprText: headers[Self.secCHDPRName] ?? headers[Self.dprName],
            widthText: headers[Self.secCHWidthName] ?? headers[Self.widthName], maxWidth: maxWidth)
    }

    /// The hints in the texts of `Sec-CH-DPR` (else `DPR`) and `Sec-CH-Width` (else `Width`); a width past
    /// `maxWidth` is taken as `maxWidth`.
    init(dprText: String?, widthText: String?, maxWidth: Int) {
        if let text = dprText, let value = Double(text.trimmingCharacters(in: .whitespaces)), value > 0,
            value <= Self.maximumDPR
        {
            dpr = Self.dprStep(value)
        }
        if let text = widthText, let value = Int(text.trimmingCharacters(in: .whitespaces)), value > 0 {
            width = min(Self.widthStep(value), max(1, maxWidth))
        }
    }

    /// `dpr` rounded up to the next quarter.
    static func dprStep(_ dpr: Double) -> Double {
        (dpr * 4).rounded(.up) / 4
    }

    /// `width` rounded up to the next multiple of a sixteenth of the power of two at or below it (of 1 up
    /// to 32).
    static func widthStep(_ width: Int) -> Int {
        let clamped = min(max(width, 1), 1 << 24)
        let step = max(1, (1 << (Int.bitWidth - 1 - clamped.leadingZeroBitCount)) >> 4)
        return (clamped + step - 1) / step * step
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
