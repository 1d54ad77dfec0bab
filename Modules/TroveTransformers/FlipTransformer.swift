import TroveCore

/// Mirrors an image: `h` swaps left and right, `v` swaps top and bottom. Exact.
public struct FlipTransformer: ImageTransformer, Equatable {
    /// Which way to mirror; the raw value is the spec name (`flip:axis=h`).
    public enum Axis: String, Sendable, CaseIterable {
        /// Mirror left to right (the horizontal direction reverses).
        case h
        /// Mirror top to bottom.
        case v
    }

    /// The direction that reverses.
    package let axis: Axis

    /// A flip along `axis`.
    public init(_ axis: Axis) {
        self.axis = axis
    }

    /// "flip(axis=h)" or "flip(axis=v)".
    public var identifier: String { "flip(axis=\(axis.rawValue))" }

    /// The mirrored image and frames, as RGBA8; the size is kept.
    public func transform(_ image: Image) throws -> Image {
        try (axis == .h ? Transposition.flipHorizontal : .flipVertical).apply(to: image)
    }
}
