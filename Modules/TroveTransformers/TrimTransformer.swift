import TroveCore

/// Cuts away a border of background: rows and columns on each side whose every pixel is within
/// `threshold` of the background colour on each channel. The background is `color` when given, else the
/// top-left pixel. Transparent pixels are compared as if laid over magenta (#ff00ff), so a transparent
/// border trims with `color` magenta, as imgproxy does. `equalHorizontal` cuts the smaller of the left
/// and right borders from both sides (likewise `equalVertical`). An image that is all background is
/// kept whole. Animated images are kept whole (as imgproxy does). imgproxy's `trim`.
public struct TrimTransformer: ImageTransformer, Equatable {
    /// Largest difference on any channel (0...255) that still counts as background.
    package let threshold: Double
    /// The background colour; nil takes the top-left pixel's.
    package let color: FillColor?
    /// Cut as much from the left as from the right.
    package let equalHorizontal: Bool
    /// Cut as much from the top as from the bottom.
    package let equalVertical: Bool

    /// `threshold` is clamped to 0...255; the alpha of `color` is ignored.
    public init(threshold: Double, color: FillColor? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false)
    {
        self.threshold = threshold.isNaN ? 0 : min(max(threshold, 0), 255)
        self.color = color.map { FillColor(red: $0.red, green: $0.green, blue: $0.blue) }
        self.equalHorizontal = equalHorizontal
        self.equalVertical = equalVertical
    }

    /// "trim(threshold=T,color=rrggbbaa|auto,eqh=B,eqv=B)".
    public var identifier: String {
        "trim(threshold=\(threshold),color=\(color?.hex ?? "auto"),eqh=\(equalHorizontal),eqv=\(equalVertical))"
    }

    /// The image without its background border.
    public func transform(_ image: Image) throws -> Image {
        guard image.frames.isEmpty, image.width > 0, image.height > 0 else { return image }
        let rgba = image.convertedToRGBA8()
        guard let box = contentBox(rgba) else { return image }
        guard box != (0, 0, rgba.width, rgba.height) else { return image }
        return try CropTransformer(x: box.x, y: box.y, width: box.width, height: box.height).transform(rgba)
    }

    /// The smallest rectangle holding every pixel that is not background, after the equal-sides rules;
    /// nil when every pixel is background.
    func contentBox(_ image: Image) -> (x: Int, y: Int, width: Int, height: Int)? {
        let width = image.width, height = image.height
        let limit = Int(threshold)
        return image.pixels.withUnsafeBufferPointer { pixels -> (x: Int, y: Int, width: Int, height: Int)? in
            func keyed(_ i: Int) -> (Int, Int, Int) {
                // Laid over magenta, so transparency has a colour to compare.
                let a = Int(pixels[i + 3]), rest = 255 - a
                return (
                    (Int(pixels[i]) * a + 255 * rest + 127) / 255, (Int(pixels[i + 1]) * a + 127) / 255,
                    (Int(pixels[i + 2]) * a + 255 * rest + 127) / 255
                )
            }
            let background = color.map { (Int($0.red), Int($0.green), Int($0.blue)) } ?? keyed(0)
            func isContent(_ x: Int, _ y: Int) -> Bool {
                let (r, g, b) = keyed((y * width + x) * 4)
                return abs(r - background.0) > limit || abs(g - background.1) > limit
                    || abs(b - background.2) > limit
            }
            var top = 0
            while top < height, !(0..<width).contains(where: { isContent($0, top) }) { top += 1 }
            guard top < height else { return nil }
            var bottom = height - 1
            while bottom > top, !(0..<width).contains(where: { isContent($0, bottom) }) { bottom -= 1 }
            var left = 0
            while left < width, !(top...bottom).contains(where: { isContent(left, $0) }) { left += 1 }
            var right = width - 1
            while right > left, !(top...bottom).contains(where: { isContent(right, $0) }) { right -= 1 }
            var cutLeft = left, cutRight = width - 1 - right, cutTop = top, cutBottom = height - 1 - bottom
            if equalHorizontal { (cutLeft, cutRight) = (min(cutLeft, cutRight), min(cutLeft, cutRight)) }
            if equalVertical { (cutTop, cutBottom) = (min(cutTop, cutBottom), min(cutTop, cutBottom)) }
            return (cutLeft, cutTop, width - cutLeft - cutRight, height - cutTop - cutBottom)
        }
    }
}
