/// How an `Image` lays out one pixel. RGBA8 (straight alpha) is the common form every transformer accepts.
public enum PixelFormat: String, Sendable, Codable {
    /// 8-bit red, green, blue, alpha; alpha is straight (not premultiplied).
    case rgba8
    /// 8-bit luminance.
    case gray8

    /// Bytes one pixel takes: 4 for `rgba8`, 1 for `gray8`.
    public var bytesPerPixel: Int {
        switch self {
        case .rgba8: 4
        case .gray8: 1
        }
    }
}
