import Trove
import TroveCore
import TroveTransformers

extension ImgproxyResize: PlanarResize {
    /// The region its row sink resamples (`ImgproxyRowSink`: the plan on the stored size, scaled to the
    /// delivered one) to the scaled size, when that is the whole result: no cut by gravity, no canvas, no
    /// region or cut chosen from the pixels, upright.
    package func planarGeometry(
        storedSize: PixelSize, deliveredSize: PixelSize, reversed: (x: Bool, y: Bool)
    ) -> PlanarResizeGeometry? {
        guard streamsRows(from: storedSize), deliveredSize.width > 0, deliveredSize.height > 0 else { return nil }
        let stored = plan(for: storedSize)
        guard !stored.smartRegion, !stored.smartCut, stored.canvas == nil,
            stored.result == PixelRect(x: 0, y: 0, width: stored.scaledWidth, height: stored.scaledHeight)
        else { return nil }
        let plan =
            deliveredSize == storedSize
            ? stored : stored.scaled(from: storedSize, to: deliveredSize, reversed: reversed)
        let region = plan.region
        return PlanarResizeGeometry(
            x: Double(region.x), y: Double(region.y), width: Double(region.width), height: Double(region.height),
            outputWidth: plan.scaledWidth, outputHeight: plan.scaledHeight, filter: filter)
    }
}
