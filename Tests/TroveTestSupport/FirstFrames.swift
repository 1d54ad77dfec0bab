import TroveCore

extension Image {
    /// This image with only its first `count` animation frames, as a decoder keeps an animation longer than
    /// `DecodingLimits.maxFrames`: one kept frame (or none asked) is a still of the first frame.
    package func keepingFirstFrames(_ count: Int) -> Image {
        var image = self
        image.frames = count > 1 ? Array(frames.prefix(count)) : []
        return image
    }
}
