import TroveCore

extension Image {
    /// This image through `transforms`, in order. With `keepsColorProfile`, the result keeps this image's
    /// colour description (a transformer makes a new image without one), so the encoder embeds the profile
    /// the colour stage left on the pixels.
    package func transformed(by transforms: [any ImageTransformer], keepsColorProfile: Bool) throws -> Image {
        var image = self
        for transformer in transforms { image = try transformer.transform(image) }
        if keepsColorProfile, image.colorDescription == nil { image.colorDescription = colorDescription }
        return image
    }
}
