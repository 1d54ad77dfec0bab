import TroveCore
import TroveTransformers

extension ColorStage {
    /// A still decoded whole, brought to sRGB with the transforms left to run. When they open with a shrinking
    /// resize (after an `orient`), those run first and the colours are converted after, on the output's pixels
    /// instead of the source's, as libvips' thumbnail orders them: a 2K photo with a profile made a 512 px
    /// thumbnail converts a sixteenth of the pixels. The two orders differ by about a level on a photo, since
    /// the resize weighs the profile's encoded values instead of sRGB's. Anything else is converted as decoded.
    func convert(_ decoded: Image, thenShrinking transforms: [any ImageTransformer]) throws -> (
        Image, [any ImageTransformer]
    ) {
        var image = decoded
        guard image.frames.isEmpty, let description = image.colorDescription,
            !keeps(description, pixelFormat: image.pixelFormat),
            let shrink = LeadingShrink(
                transforms, stored: PixelSize(width: image.width, height: image.height),
                orientation: image.orientation)
        else {
            convert(&image)
            return (image, transforms)
        }
        for transformer in transforms[...shrink.index] { image = try transformer.transform(image) }
        // A transformer makes a new image without the description; the pixels are still in its colours.
        image.colorDescription = description
        convert(&image)
        return (image, Array(transforms.dropFirst(shrink.index + 1)))
    }
}
