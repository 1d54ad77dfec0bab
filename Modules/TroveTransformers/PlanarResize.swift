import TroveCore

/// A shrinking resize that is only a resample of a region: what a planar path can carry out plane by plane
/// (`PlanarResizer`), each plane at its own resolution. `ResizeTransformer` is one; a plugin's own geometry
/// may be another, when its result needs no cut or canvas after the resample.
package protocol PlanarResize: RowStreamingResize {
    /// The resample this resize makes of an image stored at `storedSize` and delivered by the decoder at
    /// `deliveredSize` (the same, or reduced): the same region and output as its row sink would use. Nil when
    /// it is more than a resample there (a cut, a canvas, a region chosen from the pixels). `reversed`: the axes
    /// that run the other way from the stored image's, when the sizes are of the image turned.
    func planarGeometry(
        storedSize: PixelSize, deliveredSize: PixelSize, reversed: (x: Bool, y: Bool)
    ) -> PlanarResizeGeometry?
}

extension PlanarResize {
    /// The geometry on the image as stored.
    package func planarGeometry(storedSize: PixelSize, deliveredSize: PixelSize) -> PlanarResizeGeometry? {
        planarGeometry(storedSize: storedSize, deliveredSize: deliveredSize, reversed: (false, false))
    }
}

/// One resample in image pixels: the region `x, y, width, height` of the delivered image (its edges may fall
/// between pixels) to exactly `outputWidth x outputHeight`, with `filter`.
package struct PlanarResizeGeometry: Sendable, Equatable {
    package var x: Double
    package var y: Double
    package var width: Double
    package var height: Double
    package var outputWidth: Int
    package var outputHeight: Int
    package var filter: ResizeTransformer.Filter

    /// The region `x, y, width, height` resampled to `outputWidth x outputHeight` with `filter`.
    package init(
        x: Double, y: Double, width: Double, height: Double, outputWidth: Int, outputHeight: Int,
        filter: ResizeTransformer.Filter
    ) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.filter = filter
    }

    /// Whether it describes a resample that can be made: finite, a non-empty region, an output of at least a
    /// pixel each way, and a filter that convolves.
    var isValid: Bool {
        x.isFinite && y.isFinite && width.isFinite && height.isFinite && width > 0 && height > 0 && outputWidth > 0
            && outputHeight > 0 && filter != .nearest
    }
}

extension ResizeTransformer: PlanarResize {
    /// The plan its row sink makes (`StreamingResizer`): on the stored size, scaled to the delivered one.
    package func planarGeometry(
        storedSize: PixelSize, deliveredSize: PixelSize, reversed: (x: Bool, y: Bool)
    ) -> PlanarResizeGeometry? {
        guard streamsRows(from: storedSize), deliveredSize.width > 0, deliveredSize.height > 0,
            let stored = plan(sourceWidth: storedSize.width, sourceHeight: storedSize.height)
        else { return nil }
        let plan = stored.scaled(from: storedSize, to: deliveredSize, reversed: reversed)
        return PlanarResizeGeometry(
            x: plan.box.x, y: plan.box.y, width: plan.box.width, height: plan.box.height,
            outputWidth: plan.outputWidth, outputHeight: plan.outputHeight, filter: filter)
    }
}
