/// A decoded placeholder: straight-alpha RGBA8 pixels in tightly packed rows, top to bottom.
public struct PlaceholderImage: Sendable, Equatable {
    /// Width in pixels, at least 1.
    public var width: Int
    /// Height in pixels, at least 1.
    public var height: Int
    /// `width * height * 4` bytes: red, green, blue, alpha per pixel.
    public var rgba: [UInt8]

    /// An image over `rgba`, which should hold `width * height * 4` bytes.
    public init(width: Int, height: Int, rgba: [UInt8]) {
        self.width = width
        self.height = height
        self.rgba = rgba
    }
}
