import TroveCore

/// A transformer that makes its input smaller, so a decoder may hand it a reduced copy of the image
/// (shrink-on-load: JPEG's scaled IDCT, PNG rows box-averaged while unfiltered) instead of every pixel.
package protocol DownscalingTransformer: ImageTransformer {
    /// The smallest size an input of `source` size may be reduced to beforehand while this transformer
    /// still reads at least `reducingGap` input pixels per output pixel in each direction (Pillow's
    /// `reducing_gap`); nil when it shrinks by less than that, or must see the pixels as they are.
    func minimumSourceSize(for source: PixelSize, reducingGap: Double) -> PixelSize?

    /// The transformer that makes, from a `reduced` copy of a `source`-sized image, the output this one
    /// makes from the full-size image: the same size, from the same region. `byBlocks`: the decoder reduced by
    /// whole blocks, so the copy's last pixels may stand for part of one (`ReducedExtent`). `reversed`: the axes
    /// that run the other way from the stored image's, when the sizes are of the image turned.
    func forReducedSource(
        _ reduced: PixelSize, of source: PixelSize, byBlocks: Bool, reversed: (x: Bool, y: Bool)
    ) -> any ImageTransformer
}

extension DownscalingTransformer {
    /// For an upright copy reduced by whole blocks, as JPEG's and PNG's decoders reduce.
    package func forReducedSource(_ reduced: PixelSize, of source: PixelSize) -> any ImageTransformer {
        forReducedSource(reduced, of: source, byBlocks: true, reversed: (false, false))
    }
}
