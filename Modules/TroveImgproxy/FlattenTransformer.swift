import Trove
import TroveTransformers

/// Composites the image over an opaque colour, leaving every pixel opaque: imgproxy's `background`, and
/// what it does (on white) before encoding to a format without alpha such as JPEG.
package struct FlattenTransformer: ImageTransformer, Equatable {
    /// The background colour.
    package var background: ImgproxyOptions.Color

    /// Flattens onto `background`.
    package init(_ background: ImgproxyOptions.Color) {
        self.background = background
    }

    /// Flattens onto this colour, 0...255 a channel.
    package init(red: UInt8, green: UInt8, blue: UInt8) {
        self.init(ImgproxyOptions.Color(red: red, green: green, blue: blue))
    }

    /// imgproxy's default background.
    package static let white = FlattenTransformer(red: 255, green: 255, blue: 255)

    /// `flatten(r=R,g=G,b=B)`, part of the cache key.
    package var identifier: String { "flatten(r=\(background.red),g=\(background.green),b=\(background.blue))" }

    /// The image with every pixel laid over the background colour, fully opaque (`Image.flattened`).
    package func transform(_ image: Image) throws -> Image {
        image.flattened(red: background.red, green: background.green, blue: background.blue)
    }
}

/// An opaque image has nothing to lay over the background: `transform` returns it as it is.
extension FlattenTransformer: OpaqueInvariantTransformer {}
