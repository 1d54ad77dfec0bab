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
    /// shrink-on-load): the same region scaled by the reduction on each axis (`ReducedExtent`: by whole blocks
    /// unless `byBlocks` is false), the same output size. `reversed`: the axes of a plan made on the image
    /// turned, that run the other way from the stored image's.
    func scaled(
        from source: PixelSize, to reduced: PixelSize, byBlocks: Bool = true,
        reversed: (x: Bool, y: Bool) = (false, false)
    ) -> ResizePlan {
        guard reduced != source else { return self }
        let extent = ReducedExtent.size(of: source, reducedTo: reduced, byBlocks: byBlocks)
        let scaleX = extent.width / Double(source.width)
        let scaleY = extent.height / Double(source.height)
        let startX = ReducedExtent.start(span: extent.width, reducedTo: reduced.width, reversed: reversed.x)
        let startY = ReducedExtent.start(span: extent.height, reducedTo: reduced.height, reversed: reversed.y)
        return ResizePlan(
            box: Box(
                x: startX + box.x * scaleX, y: startY + box.y * scaleY, width: box.width * scaleX,
                height: box.height * scaleY),
            outputWidth: outputWidth, outputHeight: outputHeight)
    }
}
