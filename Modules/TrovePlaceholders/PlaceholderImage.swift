/// A decoded placeholder: straight-alpha RGBA8 pixels in tightly packed rows, top to bottom.
package struct PlaceholderImage: Sendable, Equatable {
    /// Width in pixels, at least 1.
    package var width: Int
    /// Height in pixels, at least 1.
    package var height: Int
    /// `width * height * 4` bytes: red, green, blue, alpha per pixel.
    package var rgba: [UInt8]

    /// An image over `rgba`, which should hold `width * height * 4` bytes.
    package init(width: Int, height: Int, rgba: [UInt8]) {
        self.width = width
        self.height = height
        self.rgba = rgba
    }
}
