import Foundation

/// A decoder that can show an image before all of its bytes have arrived: a progressive JPEG after each
/// scan, an interlaced PNG after each Adam7 pass, others as their rows so far. A pipeline asks for
/// previews only when a request wants them.
package protocol ProgressiveImageDecoder: ImageDecoder {
    /// A fresh incremental decode of one body, bounded by `limits` as a full decode is.
    func makeIncrementalDecoder(limits: DecodingLimits) -> any IncrementalImageDecoder
}

/// The state of one incremental decode, kept between calls so each call works on the new bytes only
/// (as far as the format allows). One caller feeds it, in order; it is not shared between tasks.
package protocol IncrementalImageDecoder: AnyObject {
    /// Reads the body received so far (each call's data starts with the previous call's) and returns a
    /// preview when it shows more than the last one did (another complete scan or pass), else nil. Throws
    /// `imageTooLarge` for a size over the limits and `decodingFailed` for damaged data; after a throw every
    /// call throws the same error. A preview is never the final image's source: that is a full decode.
    func preview(_ data: Data) throws -> Image?
}
