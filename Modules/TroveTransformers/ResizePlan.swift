import TroveCore

/// The geometry of one resize: resample the region `box` of the source (in source pixels; its edges may
/// fall between pixels) to exactly `outputWidth x outputHeight`. Plain resizes read the whole source;
/// fill reads the centred region with the target's aspect ratio, as Pillow's `ImageOps.fit` does.
struct ResizePlan: Equatable {
    /// A rectangle in source pixel coordinates; pixel x covers [x, x + 1).
    struct Box: Equatable {
        var x: Double
        var y: Double
        var width: Double
        var height: Double
    }

    var box: Box
    var outputWidth: Int
    var outputHeight: Int

    /// The whole `width x height` source to `outputWidth x outputHeight`.
    static func whole(width: Int, height: Int, outputWidth: Int, outputHeight: Int) -> ResizePlan {
        ResizePlan(
            box: Box(x: 0, y: 0, width: Double(width), height: Double(height)),
            outputWidth: outputWidth, outputHeight: outputHeight)
    }

    /// Whether the box is whole pixels at scale 1: the resize is a copy of that region.
    var isPlainCrop: Bool {
        box.width == Double(outputWidth) && box.height == Double(outputHeight)
            && box.x == box.x.rounded(.down) && box.y == box.y.rounded(.down)
    }

    /// This plan, made on a `source`-sized image, for the same image delivered at `reduced` (by a decoder's
    /// shrink-on-load): the same region scaled by reduced / source on each axis, the same output size.
    func scaled(from source: PixelSize, to reduced: PixelSize) -> ResizePlan {
        guard reduced != source else { return self }
        let scaleX = Double(reduced.width) / Double(source.width)
        let scaleY = Double(reduced.height) / Double(source.height)
        return ResizePlan(
            box: Box(
                x: box.x * scaleX, y: box.y * scaleY, width: box.width * scaleX,
                height: box.height * scaleY),
            outputWidth: outputWidth, outputHeight: outputHeight)
    }
}
