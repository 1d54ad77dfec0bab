import Foundation
import TroveCore
import TroveTransformers

extension ImageDecoder {
    /// Decodes for `transforms`: when they start by shrinking and the header gives the stored size, asks
    /// for the smallest reduced size still at least `reducingGap` times the output (`ShrinkOnLoad`; 2 by
    /// default), so a decoder that can reduce never allocates the full-size image. Returns the image and the
    /// transforms to run on it: together they give the output size a full-size decode would, with nearly the
    /// same pixels. When the first transform is a shrinking `ResizeTransformer`, the image is a still and this
    /// decoder streams rows (`RowStreamingImageDecoder`), the rows go straight into that resize, which is then
    /// done: the result is the resized image, with the same pixels as decoding it first, and the rest of the
    /// transforms. `streamsRows: false` keeps the decoded image for a caller that must see it before any
    /// transform (a delegate's `didDecode`).
    public func decode(
        _ data: Data, limits: DecodingLimits,
        for transforms: [any ImageTransformer],
        reducingGap: Double = ShrinkOnLoad.defaultReducingGap, streamsRows: Bool = true
    ) throws -> (Image, [any ImageTransformer]) {
        // A header this decoder cannot read is left for decode to report.
        guard let header = try? self.info(data), header.frameCount == 1 else {
            return (try decode(data, limits: limits), transforms)
        }
        let storedSize = PixelSize(width: header.width, height: header.height)
        let plan = ShrinkOnLoad(transforms: transforms, storedSize: storedSize, reducingGap: reducingGap)
        let options = DecodingOptions(limits: limits, minimumSize: plan?.minimumSize)
        if streamsRows, let streaming = self as? any RowStreamingImageDecoder,
            let resize = transforms.first as? ResizeTransformer,
            resize.streamsRows(from: storedSize)
        {
            let image = try resize.resize(storedSize: storedSize) { sink in
                try streaming.decode(data, options: options, into: sink)
            }
            return (image, Array(transforms.dropFirst()))
        }
        guard let plan else { return (try decode(data, limits: limits), transforms) }
        let image = try decode(data, options: options)
        return (image, plan.transforms(for: image))
    }
}
