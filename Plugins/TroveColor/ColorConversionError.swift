/// Why a colour description could not be used. The pipeline does not fail the request for it: it treats the
/// pixels as sRGB and logs this as a warning.
public struct ColorConversionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, e.g. "the ICC profile is for 'CMYK' colours but the pixels are RGB" (`description` says it).
    package let reason: String

    /// An error saying `reason`.
    package init(reason: String) {
        self.reason = reason
    }

    /// "colour conversion to sRGB skipped: REASON; the pixels are used as sRGB".
    public var description: String {
        "colour conversion to sRGB skipped: \(reason); the pixels are used as sRGB"
    }
}
