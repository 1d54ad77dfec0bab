import Foundation
import TroveCore
import TroveTransformers

extension ImageDecoder {
    /// Decodes for `transforms`: when they start by shrinking and the header gives the stored size, asks
    /// for the smallest reduced size still at least `reducingGap` times the output (`ShrinkOnLoad`; 2 by
    /// default), so a decoder that can reduce never allocates the full-size image. Returns the image and the
    /// transforms to run on it: together they give the output size a full-size decode would, with nearly the
    /// same pixels.
    public func decode(
        _ data: Data, limits: DecodingLimits,
        for transforms: [any ImageTransformer],
        reducingGap: Double = ShrinkOnLoad.defaultReducingGap
    ) throws -> (Image, [any ImageTransformer]) {
        // A header this decoder cannot read is left for decode to report.
        guard let header = try? self.info(data), header.frameCount == 1,
            let plan = ShrinkOnLoad(
                transforms: transforms,
                storedSize: PixelSize(width: header.width, height: header.height),
                reducingGap: reducingGap)
        else { return (try decode(data, limits: limits), transforms) }
        let image = try decode(data, options: DecodingOptions(limits: limits, minimumSize: plan.minimumSize))
        return (image, plan.transforms(for: image))
    }
}
