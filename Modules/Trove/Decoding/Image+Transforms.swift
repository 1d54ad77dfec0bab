import TroveCore

extension Image {
    /// This image through `transforms`, in order, keeping what the encoder writes back (a transformer makes
    /// a new image without it): the copyright notice, and with `keepsColorProfile` the colour description,
    /// so the encoder embeds the profile the colour stage left on the pixels.
    package func transformed(by transforms: [any ImageTransformer], keepsColorProfile: Bool) throws -> Image {
        var image = self
        for transformer in transforms { image = try transformer.transform(image) }
        if keepsColorProfile, image.colorDescription == nil { image.colorDescription = colorDescription }
        if image.copyright == nil { image.copyright = copyright }
        return image
    }
}
