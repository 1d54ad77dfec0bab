import TroveCore

/// Decides how small a decoder may make an image for a chain of transforms, and which transforms to run
/// on what it returns. Applies when the chain starts with a `DownscalingTransformer` (a shrinking resize),
/// or with `orient` followed by one. After `orient` the resize is planned on the displayed size, from the
/// orientation the header gave; when the header gave none, the minimum covers both the upright and the
/// quarter-turned reading of the stored size. `@usableFromInline`: the public shrink-on-load decode names its
/// default reducing gap in a default argument.
@usableFromInline package struct ShrinkOnLoad: Sendable {
    /// Pillow's and libvips' default: reduce to no less than twice the output, then resample exactly.
    @usableFromInline package static let defaultReducingGap = 2.0

    /// What to ask the decoder for, in the stored orientation (`DecodingOptions.minimumSize`).
    package let minimumSize: PixelSize
    /// The full stored size the plan was made for.
    package let storedSize: PixelSize
    private let transforms: [any ImageTransformer]
    private let leadingOrient: Bool

    /// Nil when the transforms gain nothing from a reduced decode. `orientation` is the header's, when it
    /// said one: a leading `orient` then plans exactly on the displayed size.
    package init?(
        transforms: [any ImageTransformer], storedSize: PixelSize, orientation: ExifOrientation? = nil,
        reducingGap: Double = ShrinkOnLoad.defaultReducingGap
    ) {
        guard storedSize.width > 0, storedSize.height > 0 else { return nil }
        let leadingOrient = transforms.first is OrientTransformer
        let index = leadingOrient ? 1 : 0
        guard index < transforms.count, let downscaler = transforms[index] as? any DownscalingTransformer
        else { return nil }
        let minimum: PixelSize
        if leadingOrient, let orientation {
            guard
                let displayed = downscaler.minimumSourceSize(
                    for: orientation.swapsAxes ? storedSize.transposed : storedSize, reducingGap: reducingGap)
            else { return nil }
            minimum = orientation.swapsAxes ? displayed.transposed : displayed
        } else if leadingOrient {
            // Unknown orientation: the larger of what the upright and the quarter-turned image need.
            guard let upright = downscaler.minimumSourceSize(for: storedSize, reducingGap: reducingGap),
                let turned = downscaler.minimumSourceSize(for: storedSize.transposed, reducingGap: reducingGap)
            else { return nil }
            minimum = PixelSize(width: max(upright.width, turned.height), height: max(upright.height, turned.width))
        } else {
            guard let needed = downscaler.minimumSourceSize(for: storedSize, reducingGap: reducingGap)
            else { return nil }
            minimum = needed
        }
        guard minimum.width < storedSize.width || minimum.height < storedSize.height else { return nil }
        self.minimumSize = minimum
        self.storedSize = storedSize
        self.transforms = transforms
        self.leadingOrient = leadingOrient
    }

    /// The transforms to run on what the decoder returned: unchanged when it decoded at full size; else
    /// the downscaling step replaced by one that makes the same output from the reduced image. `byBlocks`:
    /// the decoder reduces by whole blocks (`ImageDecoder.reducesByBlocks`).
    package func transforms(for decoded: Image, byBlocks: Bool = true) -> [any ImageTransformer] {
        let reduced = PixelSize(width: decoded.width, height: decoded.height)
        let index = leadingOrient ? 1 : 0
        guard reduced != storedSize, let downscaler = transforms[index] as? any DownscalingTransformer else {
            return transforms
        }
        // After `orient` the resize sees the image upright: a quarter turn swaps both sizes, and a mirror puts
        // the copy's partial last pixels first.
        let turn = leadingOrient ? Transposition(undoing: decoded.orientation) : .identity
        var result = transforms
        result[index] = downscaler.forReducedSource(
            turn.outputSize(of: reduced), of: turn.outputSize(of: storedSize), byBlocks: byBlocks,
            reversed: turn.reversesOutputAxes)
        return result
    }
}

extension PixelSize {
    /// Width and height swapped: the size after a quarter turn.
    var transposed: PixelSize { PixelSize(width: height, height: width) }
}
