import TroveCore

/// A resize planned on the full-size image, carried out on the reduced copy a decoder made of it: same
/// output size, same region. Its identifier is the original resize's, since the result stands for it.
struct ReducedSourceResize: ImageTransformer {
    let identifier: String
    let reducedSize: PixelSize
    let plan: ResizePlan
    let filter: ResizeTransformer.Filter

    func transform(_ image: Image) throws -> Image {
        guard image.width == reducedSize.width, image.height == reducedSize.height else {
            throw TroveError.invalidConfiguration(
                "a resize planned for a \(reducedSize) reduced image was given a \(image.width)x\(image.height) one")
        }
        return try ResizeTransformer.resample(image, plan: plan, filter: filter)
    }
}
