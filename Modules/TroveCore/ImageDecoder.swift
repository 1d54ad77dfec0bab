import Foundation

/// Turns encoded bytes of one format into an `Image`.
public protocol ImageDecoder: Sendable {
    /// The registry name, e.g. "png".
    var name: String { get }
    var format: ImageFormat { get }
    /// Whether these first bytes (at least `ImageFormat.sniffLength` when available) are this decoder's.
    func canDecode(_ header: Data) -> Bool
    /// Decodes the whole image, refusing anything over `limits` before allocating for it.
    func decode(_ data: Data, limits: DecodingLimits) throws -> Image
}

extension ImageDecoder {
    public func canDecode(_ header: Data) -> Bool {
        ImageFormat(sniffing: header) == format
    }
}
