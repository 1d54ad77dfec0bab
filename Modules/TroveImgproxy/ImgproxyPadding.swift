import Trove

/// imgproxy's `padding:%top:%right:%bottom:%left` in CSS pixels, read the CSS way: a missing right takes
/// the top, a missing bottom the top, a missing left the right.
package struct ImgproxyPadding: Sendable, Equatable {
    /// CSS pixels above the image.
    package var top: Int
    /// CSS pixels right of it.
    package var right: Int
    /// CSS pixels below it.
    package var bottom: Int
    /// CSS pixels left of it.
    package var left: Int

    /// Padding of these sizes.
    package init(top: Int, right: Int, bottom: Int, left: Int) {
        self.top = top
        self.right = right
        self.bottom = bottom
        self.left = left
    }

    /// The borders in pixels (times `dpr`) over `background` (transparent without one); nil when all are 0.
    func transformer(dpr: Double, background: ImgproxyOptions.Color?) -> PaddingTransformer? {
        func scaled(_ value: Int) -> Int { Int((Double(value) * dpr).rounded()) }
        guard top > 0 || right > 0 || bottom > 0 || left > 0 else { return nil }
        let fill = background.map { FillColor(red: $0.red, green: $0.green, blue: $0.blue) } ?? .transparent
        return PaddingTransformer(
            top: scaled(top), right: scaled(right), bottom: scaled(bottom), left: scaled(left), fill: fill)
    }
}
