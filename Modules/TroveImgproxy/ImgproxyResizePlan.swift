import Trove
import TroveTransformers

/// A whole-pixel rectangle.
struct PixelRect: Equatable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int
}

/// One imgproxy resize, in pixels: keep `region` of the source, resample it to `scaledWidth x scaledHeight`,
/// keep `result` of that.
struct ImgproxyResizePlan: Equatable {
    var region: PixelRect
    var scaledWidth: Int
    var scaledHeight: Int
    var result: PixelRect
    /// The largest `scaledWidth` or `scaledHeight` `apply` will make.
    var maxDimension: Int = .max
    /// The crop's gravity is smart: `region` has its size, its place is chosen from the pixels.
    var smartRegion = false
    /// The gravity is smart: `result` has its size, its place is chosen from the scaled pixels.
    var smartCut = false
    /// The canvas the cut image is extended to (its size, and the image's place on it); nil keeps the cut.
    var canvas: PixelRect?

    /// Whether the pixels must be seen before the region is known (so rows cannot stream into a resize).
    var needsWholeSource: Bool { smartRegion }

    func apply(to image: Image, filter: ResizeTransformer.Filter) throws -> Image {
        try checkResultSize()
        var output = image
        var region = self.region
        if smartRegion, region.width < image.width || region.height < image.height {
            let origin = AttentionRegion.origin(in: image, width: region.width, height: region.height)
            region.x = origin.x
            region.y = origin.y
        }
        if region != PixelRect(x: 0, y: 0, width: image.width, height: image.height) {
            output = try CropTransformer(x: region.x, y: region.y, width: region.width, height: region.height)
                .transform(output)
        }
        if scaledWidth != output.width || scaledHeight != output.height {
            output = try ResizeTransformer(
                width: scaledWidth, height: scaledHeight, mode: .stretch, filter: filter,
                upscale: true
            ).transform(output)
        }
        return try cut(output)
    }

    /// Throws imgproxy's 422 when the resampled image would be over `maxDimension` on a side.
    func checkResultSize() throws {
        let canvasWidth = canvas?.width ?? 0, canvasHeight = canvas?.height ?? 0
        guard max(scaledWidth, canvasWidth) <= maxDimension, max(scaledHeight, canvasHeight) <= maxDimension else {
            throw ImgproxyURLError(
                status: 422,
                message:
                    "the result would be \(max(scaledWidth, canvasWidth))x\(max(scaledHeight, canvasHeight)) pixels, over this server's limit of "
                    + "\(maxDimension) pixels a side; ask for a smaller size")
        }
    }

    /// Keeps `result` of the `scaledWidth x scaledHeight` image (placed by its pixels when the gravity is
    /// smart), then extends it onto `canvas`.
    func cut(_ scaled: Image) throws -> Image {
        var result = self.result
        if smartCut {
            let origin = AttentionRegion.origin(in: scaled, width: result.width, height: result.height)
            result.x = origin.x
            result.y = origin.y
        }
        var output = scaled
        if result != PixelRect(x: 0, y: 0, width: scaled.width, height: scaled.height) {
            output = try CropTransformer(x: result.x, y: result.y, width: result.width, height: result.height)
                .transform(scaled)
        }
        guard let canvas else { return output }
        return try EmbedTransformer(width: canvas.width, height: canvas.height, x: canvas.x, y: canvas.y)
            .transform(output)
    }

    /// The same plan for a `reduced` copy of a `source`-sized image: the region scaled by the reduction
    /// (`ReducedExtent`: by whole blocks unless `byBlocks` is false), the rest unchanged. `reversed`: the axes
    /// of a plan made on the image turned, that run the other way from the stored image's.
    func scaled(
        from source: PixelSize, to reduced: PixelSize, byBlocks: Bool = true,
        reversed: (x: Bool, y: Bool) = (false, false)
    ) -> ImgproxyResizePlan {
        let extent = ReducedExtent.size(of: source, reducedTo: reduced, byBlocks: byBlocks)
        let scaleX = extent.width / Double(source.width)
        let scaleY = extent.height / Double(source.height)
        let startX = ReducedExtent.start(span: extent.width, reducedTo: reduced.width, reversed: reversed.x)
        let startY = ReducedExtent.start(span: extent.height, reducedTo: reduced.height, reversed: reversed.y)
        let x = min(Int((startX + Double(region.x) * scaleX).rounded()), reduced.width - 1)
        let y = min(Int((startY + Double(region.y) * scaleY).rounded()), reduced.height - 1)
        let width = min(max(1, Int((Double(region.width) * scaleX).rounded())), reduced.width - x)
        let height = min(max(1, Int((Double(region.height) * scaleY).rounded())), reduced.height - y)
        var plan = self
        plan.region = PixelRect(x: max(x, 0), y: max(y, 0), width: width, height: height)
        return plan
    }
}
