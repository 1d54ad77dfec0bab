import TroveCore

extension Transposition {
    /// Which of the output's axes run the other way from the source's (its x, its y).
    package var reversesOutputAxes: (x: Bool, y: Bool) {
        swapsAxes ? (mirrorsY, mirrorsX) : (mirrorsX, mirrorsY)
    }

    /// The size of the output for a source of `size`.
    package func outputSize(of size: PixelSize) -> PixelSize {
        swapsAxes ? PixelSize(width: size.height, height: size.width) : size
    }

    /// The region of a `sourceSize` source that becomes the output region `x, y, width, height` (continuous
    /// coordinates: pixel x covers [x, x + 1)).
    package func sourceRegion(
        x: Double, y: Double, width: Double, height: Double, sourceSize: PixelSize
    ) -> (x: Double, y: Double, width: Double, height: Double) {
        // Output (x, y) reads source (u, v) = (y, x) when the axes swap; then u and/or v are mirrored.
        var (u, v, uLength, vLength) = swapsAxes ? (y, x, height, width) : (x, y, width, height)
        if mirrorsX { u = Double(sourceSize.width) - u - uLength }
        if mirrorsY { v = Double(sourceSize.height) - v - vLength }
        return (u, v, uLength, vLength)
    }

    /// A resize planned on the output (the turned image), as a plan on the source: the same region, read from
    /// the source, to the output size turned back. Carrying it out and then this transposition gives the plan's
    /// result.
    func sourcePlan(of plan: ResizePlan, sourceSize: PixelSize) -> ResizePlan {
        let box = plan.box
        let region = sourceRegion(x: box.x, y: box.y, width: box.width, height: box.height, sourceSize: sourceSize)
        let output = outputSize(of: PixelSize(width: plan.outputWidth, height: plan.outputHeight))
        return ResizePlan(
            box: ResizePlan.Box(x: region.x, y: region.y, width: region.width, height: region.height),
            outputWidth: output.width, outputHeight: output.height)
    }

    /// A resample planned on the output (the turned image) of a `deliveredSize` source, as one of the source:
    /// the same region read from the source, to the output size turned back.
    func storedGeometry(of shown: PlanarResizeGeometry, deliveredSize: PixelSize) -> PlanarResizeGeometry {
        guard self != .identity else { return shown }
        let region = sourceRegion(
            x: shown.x, y: shown.y, width: shown.width, height: shown.height, sourceSize: deliveredSize)
        let output = outputSize(of: PixelSize(width: shown.outputWidth, height: shown.outputHeight))
        return PlanarResizeGeometry(
            x: region.x, y: region.y, width: region.width, height: region.height, outputWidth: output.width,
            outputHeight: output.height, filter: shown.filter)
    }
}

/// A resize of stored rows whose result is then turned upright: what a streamed resize of a turned image
/// delivers, so the decoder's rows never need to be held whole.
package final class OrientingRowSink: ResizingRowSink {
    private let inner: any ResizingRowSink
    private let turn: Transposition

    /// Rows go to `inner` as they come; its result is turned by `turn`.
    package init(_ inner: any ResizingRowSink, turn: Transposition) {
        self.inner = inner
        self.turn = turn
    }

    package func begin(_ header: RowStreamHeader) throws { try inner.begin(header) }

    package func consume(_ row: UnsafePointer<UInt8>) throws { try inner.consume(row) }

    /// The inner result turned, marked upright.
    package func result() throws -> Image { try turn.apply(to: inner.result(), orientation: .up) }
}
