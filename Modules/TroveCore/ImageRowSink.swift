import Foundation

/// What a row-streaming decoder tells its sink before the first row: the size of the rows it will deliver
/// (reduced, when it was asked to and can) and what it learned about the source.
package struct RowStreamHeader: Sendable, Equatable {
    /// Pixels in each row.
    package var width: Int
    /// Rows that will follow.
    package var height: Int
    /// The format being decoded.
    package var sourceFormat: ImageFormat
    /// The EXIF orientation found; rows arrive as stored, not turned.
    package var orientation: ExifOrientation
    /// What the source says about the rows' colours (`Image.colorDescription`); nil for sRGB or unknown.
    package var colorDescription: ColorDescription?

    /// A header for `width x height` rows of `sourceFormat`, stored in `orientation` (default `.up`), in the
    /// colours `colorDescription` describes (default: sRGB or unknown).
    package init(
        width: Int, height: Int, sourceFormat: ImageFormat, orientation: ExifOrientation = .up,
        colorDescription: ColorDescription? = nil
    ) {
        self.width = width
        self.height = height
        self.sourceFormat = sourceFormat
        self.orientation = orientation
        self.colorDescription = colorDescription
    }
}

/// A consumer of decoded straight-alpha RGBA8 rows: told the size once, then given every row in order, top
/// to bottom, so it can work on an image without anyone holding all of it. One decode drives a sink from
/// one thread, start to end; a sink is mutable state and so is not `Sendable`.
package protocol ImageRowSink: AnyObject {
    /// Called once, before any row, after the decoder has checked its limits.
    func begin(_ header: RowStreamHeader) throws
    /// Called `header.height` times with `header.width * 4` bytes. The bytes are valid only during the call:
    /// decoders reuse one row buffer.
    func consume(_ row: UnsafePointer<UInt8>) throws
}

/// A decoder that can hand a still image to an `ImageRowSink` row by row instead of returning it whole.
package protocol RowStreamingImageDecoder: ImageDecoder {
    /// Decodes the first (or only) frame into `sink`, reducing as `decode(_:options:)` would for
    /// `options.minimumSize`; the rows equal that method's pixels. Checks `options.limits` before allocating
    /// and before `sink.begin`; an error thrown by the sink stops the decode and is rethrown. Allocates no
    /// image-sized buffer at either size, only a few rows, except where a decoder documents a kind of file it
    /// must decode whole first (an Adam7 PNG).
    func decode(_ data: Data, options: DecodingOptions, into sink: any ImageRowSink) throws
}
