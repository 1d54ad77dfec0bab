import Trove

extension ImgproxyURL {
    /// The encoder settings for `ImageRequest.encodingOptions`: `base` with this URL's quality (`q:80` is
    /// 0.80) when it names one; nil when it does not, so the pipeline's own settings apply and an unchanged
    /// image may keep its original bytes.
    package func encodingOptions(base: EncodingOptions) -> EncodingOptions? {
        encodingOptions(base: base, format: nil, formatQualities: [:])
    }

    /// The quality for a result encoded as `format`, by imgproxy's order: the URL's `quality`, then its
    /// `format_quality` for that format, then the server's `formatQualities`; nil leaves the encoder's.
    package func quality(for format: ImageFormat?, formatQualities: [ImageFormat: Int]) -> Int? {
        if let quality { return quality }
        guard let format else { return nil }
        return options.formatQuality[format] ?? formatQualities[format]
    }

    /// `base` with the quality `quality(for:formatQualities:)` picks; nil when none applies.
    package func encodingOptions(
        base: EncodingOptions, format: ImageFormat?, formatQualities: [ImageFormat: Int]
    ) -> EncodingOptions? {
        guard let quality = quality(for: format, formatQualities: formatQualities) else { return nil }
        var options = base
        options.quality = Double(quality) / 100
        return options
    }
}
