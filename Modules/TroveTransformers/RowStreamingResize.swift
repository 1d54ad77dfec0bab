import TroveCore

/// A shrinking transform that can take its input from a decoder row by row (`ImageRowSink`) instead of as
/// a whole decoded image: the rows go straight into the resampler, so neither the decoded image nor a copy
/// of it is ever held. `ResizeTransformer` is one; a plugin's own geometry may be another.
package protocol RowStreamingResize: DownscalingTransformer {
    /// Whether `makeRowSink(storedSize:)` applies to an image stored at `source` size: the transform
    /// shrinks with a filter that convolves. Other cases keep the whole-image path.
    func streamsRows(from source: PixelSize) -> Bool

    /// A sink for the rows of an image stored at `storedSize`, delivered at that size or reduced by the
    /// decoder: once every row is in, its `result()` equals `transform` of the decoded image (or, for a
    /// reduced copy, what `forReducedSource` makes of it), pixel for pixel.
    func makeRowSink(storedSize: PixelSize) throws -> any ResizingRowSink

    /// A sink for the stored rows of an image displayed in `orientation` (as `orient` turns it), whose result
    /// equals `transform` of the upright image; nil when this resize cannot be planned that way, and the
    /// decoder's image is then turned whole first.
    func makeRowSink(storedSize: PixelSize, orientation: ExifOrientation) throws -> (any ResizingRowSink)?
}

/// A row sink that makes an image: its `result()` is ready once the decoder has delivered every row.
package protocol ResizingRowSink: ImageRowSink {
    /// The transformed image; throws when the decoder stopped early or never began.
    func result() throws -> Image
}

extension RowStreamingResize {
    /// Upright images only, by default.
    package func makeRowSink(storedSize: PixelSize, orientation: ExifOrientation) throws -> (any ResizingRowSink)? {
        orientation == .up ? try makeRowSink(storedSize: storedSize) : nil
    }

    /// Transforms an image stored at `storedSize` while `decode` delivers its rows (at that size or reduced)
    /// to the sink it is given, without holding the decoded image: the same pixels as decoding whole, then
    /// `transform` (or the `forReducedSource` transform for a reduced decode). Throws what `decode` throws,
    /// or when it delivers too few rows.
    package func resize(
        storedSize: PixelSize, streaming decode: (any ImageRowSink) throws -> Void
    ) throws -> Image {
        let sink = try makeRowSink(storedSize: storedSize)
        try decode(sink)
        return try sink.result()
    }
}
