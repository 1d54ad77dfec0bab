import TroveCore

/// Adds borders of `fill` around the image (CSS order: top, right, bottom, left): the result is
/// `left + width + right` by `top + height + bottom`. imgproxy's `padding`.
public struct PaddingTransformer: ImageTransformer, Equatable {
    /// Pixels added above the image.
    package let top: Int
    /// Pixels added right of the image.
    package let right: Int
    /// Pixels added below the image.
    package let bottom: Int
    /// Pixels added left of the image.
    package let left: Int
    /// What the borders hold.
    package let fill: FillColor

    /// Borders of these sizes (negative sizes count as 0).
    public init(top: Int, right: Int, bottom: Int, left: Int, fill: FillColor = .transparent) {
        self.top = max(top, 0)
        self.right = max(right, 0)
        self.bottom = max(bottom, 0)
        self.left = max(left, 0)
        self.fill = fill
    }

    /// "pad(t=T,r=R,b=B,l=L,fill=rrggbbaa)".
    public var identifier: String { "pad(t=\(top),r=\(right),b=\(bottom),l=\(left),fill=\(fill.hex))" }

    /// The image on a canvas larger by the borders.
    public func transform(_ image: Image) throws -> Image {
        try EmbedTransformer(
            width: image.width + left + right, height: image.height + top + bottom, x: left, y: top, fill: fill
        ).transform(image)
    }
}
