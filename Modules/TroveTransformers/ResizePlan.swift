/// The geometry of one resize: scale the source to `scaledWidth x scaledHeight`, then keep the
/// centred `outputWidth x outputHeight` window of that (the crop is empty except in fill mode).
struct ResizePlan: Equatable {
    var scaledWidth: Int
    var scaledHeight: Int
    var outputWidth: Int
    var outputHeight: Int

    /// Left edge of the kept window within the scaled image.
    var cropX: Int { (scaledWidth - outputWidth) / 2 }
    /// Top edge of the kept window within the scaled image.
    var cropY: Int { (scaledHeight - outputHeight) / 2 }

    static func scaled(width: Int, height: Int) -> ResizePlan {
        ResizePlan(scaledWidth: width, scaledHeight: height, outputWidth: width, outputHeight: height)
    }
}
