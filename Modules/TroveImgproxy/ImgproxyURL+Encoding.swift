import Trove

extension ImgproxyURL {
    /// The encoder settings for `ImageRequest.encodingOptions`: `base` with this URL's quality (`q:80` is
    /// 0.80) when it names one; nil when it does not, so the pipeline's own settings apply and an unchanged
    /// image may keep its original bytes.
    public func encodingOptions(base: EncodingOptions) -> EncodingOptions? {
        guard let quality else { return nil }
        var options = base
        options.quality = Double(quality) / 100
        return options
    }
}
