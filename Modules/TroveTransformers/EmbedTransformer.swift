import TroveCore

/// Places the image on a `width x height` canvas with its top-left corner at (`x`, `y`), the rest filled
/// with `fill`: imgproxy's extend and padding. Exact: the image's pixels are copied, never resampled. Parts
/// of the image that fall outside the canvas are cut off.
public struct EmbedTransformer: ImageTransformer, Equatable {
    /// The canvas width in pixels (at least 1).
    package let width: Int
    /// The canvas height in pixels (at least 1).
    package let height: Int
    /// Where the image's left edge lands on the canvas (may be negative: the image's left is cut).
    package let x: Int
    /// Where the image's top edge lands on the canvas.
    package let y: Int
    /// What the canvas holds outside the image.
    package let fill: FillColor

    /// A canvas of `width x height` (sizes below 1 are raised to 1) with the image at (`x`, `y`).
    public init(width: Int, height: Int, x: Int, y: Int, fill: FillColor = .transparent) {
        self.width = max(width, 1)
        self.height = max(height, 1)
        self.x = x
        self.y = y
        self.fill = fill
    }

    /// "embed(w=W,h=H,x=X,y=Y,fill=rrggbbaa)".
    public var identifier: String { "embed(w=\(width),h=\(height),x=\(x),y=\(y),fill=\(fill.hex))" }

    /// The image and every frame on the canvas, as RGBA8.
    public func transform(_ image: Image) throws -> Image {
        if width == image.width, height == image.height, x == 0, y == 0 { return image }
        let sourceWidth = image.width, sourceHeight = image.height
        let canvasWidth = width, canvasHeight = height, left = x, top = y
        let (r, g, b, a) = fill.bytes
        return try image.mappingEveryFrame(toWidth: width, height: height) { src, dst in
            var i = 0
            while i < dst.count {
                dst[i] = r
                dst[i + 1] = g
                dst[i + 2] = b
                dst[i + 3] = a
                i += 4
            }
            let firstX = max(left, 0), lastX = min(left + sourceWidth, canvasWidth)
            let firstY = max(top, 0), lastY = min(top + sourceHeight, canvasHeight)
            guard firstX < lastX, firstY < lastY else { return }
            let rowBytes = (lastX - firstX) * 4
            guard let source = src.baseAddress, let destination = dst.baseAddress else { return }
            for canvasY in firstY..<lastY {
                let from = ((canvasY - top) * sourceWidth + (firstX - left)) * 4
                let to = (canvasY * canvasWidth + firstX) * 4
                (destination + to).update(from: source + from, count: rowBytes)
            }
        }
    }
}
