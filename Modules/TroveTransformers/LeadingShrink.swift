import TroveCore

/// The shrinking resize a decode can take over: the first of the transforms, or the second after a leading
/// `orient`, when it is a `RowStreamingResize` that shrinks the picture as the resize sees it. The decode
/// streams rows into it, or converts colours after it, and the transforms after it run as usual.
package struct LeadingShrink {
    /// 1 when an `orient` comes first (the resize sees the picture turned upright), else 0.
    package let index: Int
    package let resize: any RowStreamingResize
    /// The size the resize sees: the stored size, axes swapped when `orient` leads and turns it.
    package let shown: PixelSize

    /// Whether `orient` comes before the resize.
    package var followsOrient: Bool { index == 1 }

    /// The leading shrink of `transforms` for a picture stored at `stored` in `orientation`; nil when they open
    /// with anything else.
    package init?(_ transforms: [any ImageTransformer], stored: PixelSize, orientation: ExifOrientation) {
        let index = transforms.first is OrientTransformer ? 1 : 0
        let shown =
            index == 1 && orientation.swapsAxes ? PixelSize(width: stored.height, height: stored.width) : stored
        guard index < transforms.count, let resize = transforms[index] as? any RowStreamingResize,
            resize.streamsRows(from: shown)
        else { return nil }
        self.index = index
        self.resize = resize
        self.shown = shown
    }
}
