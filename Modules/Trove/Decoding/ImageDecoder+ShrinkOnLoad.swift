import Foundation
import Logging
import TroveCore
import TroveTransformers

extension ImageDecoder {
    /// Decodes for `transforms`: when they start by shrinking and the header gives the stored size, asks
    /// for the smallest reduced size still at least `reducingGap` times the output (`ShrinkOnLoad`; 2 by
    /// default), so a decoder that can reduce never allocates the full-size image. Returns the image and the
    /// transforms to run on it: together they give the output size a full-size decode would, with nearly the
    /// same pixels. When the first transform (or the first after `orient`) is a shrinking `RowStreamingResize`,
    /// the image is a still and this decoder streams rows (`RowStreamingImageDecoder`), the rows go straight
    /// into that resize, which is then done: the result is the resized image, with the same pixels as decoding
    /// it first, and the rest of the transforms. After `orient` this holds for an upright image; a turned one
    /// is decoded whole and gets every transform. `streamsRows: false` keeps the decoded image for a caller
    /// that must see it before any transform (a delegate's `didDecode`). With a `colorConverter` (the registry's
    /// `colorConverter`), the image is brought to sRGB once decoded and reduced, before those transforms, or
    /// right after a leading shrinking resize, which is then done (streamed or whole); a colour description it
    /// cannot use is logged as a warning on `logger` and the pixels are kept as sRGB.
    /// With `keepsColorProfile`, pixels under an RGB or gray ICC profile stay as stored and the image keeps
    /// the profile (`ImageRequest.Options.keepsColorProfile`). With `keepsCopyright` (the default), the image
    /// carries the file's copyright notice (EXIF, XMP and IPTC-IIM rights fields) for the encoder to write back.
    public func decode(
        _ data: Data, limits: DecodingLimits,
        for transforms: [any ImageTransformer],
        reducingGap: Double = ShrinkOnLoad.defaultReducingGap, streamsRows: Bool = true,
        colorConverter: (any ColorConverter)? = nil, keepsColorProfile: Bool = false, keepsCopyright: Bool = true,
        logger: Logger = Logger(label: "trove.color")
    ) throws -> (Image, [any ImageTransformer]) {
        try decode(
            data, limits: limits, for: transforms, reducingGap: reducingGap, streamsRows: streamsRows,
            color: colorConverter.map {
                ColorStage(converter: $0, logger: logger, keepsProfiles: keepsColorProfile)
            }, keepsCopyright: keepsCopyright)
    }

    /// As the public `decode(_:limits:for:reducingGap:streamsRows:)`, with the colour stage run on the image as
    /// decoded and reduced, before the transforms that are left: on a streamed resize's result (`RowColorTap`),
    /// on the decoded image, or after a whole decode's leading shrink (`ColorStage.convert(_:thenShrinking:)`); CMYK
    /// samples are converted by the decoder through `color`'s converter. With `keepsCopyright` the image
    /// carries the file's copyright notice. `header` is the header when the caller has read it already
    /// (`SourceProbe`); it is read here otherwise.
    func decode(
        _ data: Data, limits: DecodingLimits,
        for transforms: [any ImageTransformer],
        reducingGap: Double, streamsRows: Bool, color: ColorStage?, keepsCopyright: Bool = true,
        header: ImageInfo? = nil
    ) throws -> (Image, [any ImageTransformer]) {
        var (image, rest) = try decodeReduced(
            data, limits: limits, for: transforms, reducingGap: reducingGap, streamsRows: streamsRows, color: color,
            header: header)
        if keepsCopyright { image.copyright = copyrightNotice(data) }
        return (image, rest)
    }

    private func decodeReduced(
        _ data: Data, limits: DecodingLimits,
        for transforms: [any ImageTransformer],
        reducingGap: Double, streamsRows: Bool, color: ColorStage?, header known: ImageInfo?
    ) throws -> (Image, [any ImageTransformer]) {
        func converted(_ image: Image) -> Image {
            var image = image
            color?.convert(&image)
            return image
        }
        // Streamed rows reach the resize in their source's colours; its result is converted, as a whole
        // decode's shrink is (`ColorStage.convert(_:thenShrinking:)`): the output's pixels, not the source's.
        func convertedAfterShrink(_ image: Image, _ tap: RowColorTap?) -> Image {
            guard let color, let tap else { return image }
            var image = image
            image.colorDescription = tap.description
            color.convert(&image)
            return image
        }
        let converter = color?.decoderConverter
        // A header this decoder cannot read is left for decode to report.
        guard let header = known ?? (try? self.info(data)), header.frameCount == 1 else {
            return (
                converted(try decode(data, options: DecodingOptions(limits: limits, colorConverter: converter))),
                transforms
            )
        }
        let storedSize = PixelSize(width: header.width, height: header.height)
        let plan = ShrinkOnLoad(
            transforms: transforms, storedSize: storedSize, orientation: header.orientation,
            reducingGap: max(reducingGap, leastReducingGap))
        let options = DecodingOptions(limits: limits, minimumSize: plan?.minimumSize, colorConverter: converter)
        // After `orient` the resize applies to the picture as displayed (`LeadingShrink.shown`).
        if streamsRows, let streaming = self as? any RowStreamingImageDecoder,
            let shrink = LeadingShrink(transforms, stored: storedSize, orientation: header.orientation)
        {
            guard shrink.followsOrient, header.orientation != .up else {
                let sink = try shrink.resize.makeRowSink(storedSize: storedSize)
                let tap = color.map { _ in RowColorTap(next: sink) }
                try streaming.decode(data, options: options, into: tap ?? sink)
                let image = convertedAfterShrink(try sink.result(), tap)
                // An upright image's `orient` does nothing; it stays only if the decoder said otherwise.
                let rest = Array(transforms.dropFirst(shrink.index + 1))
                return (image, shrink.followsOrient && image.orientation != .up ? [transforms[0]] + rest : rest)
            }
            if let sink = try shrink.resize.makeRowSink(storedSize: storedSize, orientation: header.orientation) {
                let router = OrientedRowRouter(resize: sink, expected: header.orientation)
                let tap = color.map { _ in RowColorTap(next: router) }
                try streaming.decode(data, options: options, into: tap ?? router)
                switch try router.result() {
                case let .resized(image):
                    // The sink turned its result upright: `orient` and the resize are both done.
                    return (convertedAfterShrink(image, tap), Array(transforms.dropFirst(2)))
                case let .decoded(image):
                    // Kept whole, with the header's description: converted as a whole decode is.
                    let rest = plan?.transforms(for: image, byBlocks: reducesByBlocks) ?? transforms
                    guard let color else { return (image, rest) }
                    return try color.convert(image, thenShrinking: rest)
                }
            }
        }
        let image = try decode(data, options: options)
        let rest = plan?.transforms(for: image, byBlocks: reducesByBlocks) ?? transforms
        // A caller that must see the decoded image before any transform gets it converted as decoded.
        guard streamsRows, let color else { return (converted(image), rest) }
        return try color.convert(image, thenShrinking: rest)
    }
}
