import TroveCore

extension ResizeTransformer: DownscalingTransformer {
    /// Nil for nearest neighbour (a reduced copy has averaged away the pixels it would pick) and when
    /// neither axis shrinks by more than `reducingGap`. Each axis gets its own minimum; a decoder reduces
    /// both alike, so it serves the larger need.
    package func minimumSourceSize(for source: PixelSize, reducingGap: Double = 2) -> PixelSize? {
        guard filter != .nearest, let plan = plan(sourceWidth: source.width, sourceHeight: source.height)
        else { return nil }
        // Reducing by r leaves box * r source pixels for each output axis; keep that >= gap * output.
        let width = min(
            source.width,
            Int(
                (reducingGap * Double(plan.outputWidth) * Double(source.width)
                    / plan.box.width).rounded(.up)))
        let height = min(
            source.height,
            Int(
                (reducingGap * Double(plan.outputHeight) * Double(source.height)
                    / plan.box.height).rounded(.up)))
        guard width < source.width || height < source.height else { return nil }
        return PixelSize(width: max(width, 1), height: max(height, 1))
    }

    /// The region this resize reads from a `source`-sized image, scaled to the `reduced` copy by the reduction
    /// (`ReducedExtent`), resampled to the same output size.
    package func forReducedSource(
        _ reduced: PixelSize, of source: PixelSize, byBlocks: Bool, reversed: (x: Bool, y: Bool)
    ) -> any ImageTransformer {
        guard reduced != source, let plan = plan(sourceWidth: source.width, sourceHeight: source.height) else {
            return self
        }
        let scaled = plan.scaled(from: source, to: reduced, byBlocks: byBlocks, reversed: reversed)
        return ReducedSourceResize(identifier: identifier, reducedSize: reduced, plan: scaled, filter: filter)
    }
}
