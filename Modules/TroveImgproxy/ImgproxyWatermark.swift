import Trove

/// imgproxy's `watermark:%opacity:%position:%x_offset:%y_offset:%scale`, applied with the server's
/// watermark image.
package struct ImgproxyWatermark: Sendable, Equatable {
    /// 0...1.
    package var opacity: Double
    /// One of the nine positions, or `re` (tiled).
    package var position: WatermarkTransformer.Position
    /// Offset (or tile spacing); absolute values are CSS pixels, scaled by dpr.
    package var xOffset: Double
    /// As `xOffset`, vertically.
    package var yOffset: Double
    /// Above 0: the watermark's size as a fraction of the image's.
    package var scale: Double

    /// A watermark placement.
    package init(
        opacity: Double, position: WatermarkTransformer.Position = .center, xOffset: Double = 0,
        yOffset: Double = 0, scale: Double = 0
    ) {
        self.opacity = opacity
        self.position = position
        self.xOffset = xOffset
        self.yOffset = yOffset
        self.scale = scale
    }

    func transformer(mark: Image, dpr: Double) -> WatermarkTransformer {
        func scaled(_ value: Double) -> Double { abs(value) >= 1 ? value * dpr : value }
        return WatermarkTransformer(
            mark: mark, opacity: opacity, position: position, xOffset: scaled(xOffset), yOffset: scaled(yOffset),
            scale: scale)
    }
}
