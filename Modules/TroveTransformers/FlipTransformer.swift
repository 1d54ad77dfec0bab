import TroveCore

/// Mirrors an image: `h` swaps left and right, `v` swaps top and bottom. Exact.
public struct FlipTransformer: ImageTransformer, Equatable {
    public enum Axis: String, Sendable, CaseIterable {
        /// Mirror left to right (the horizontal direction reverses).
        case h
        /// Mirror top to bottom.
        case v
    }

    public let axis: Axis

    public init(_ axis: Axis) {
        self.axis = axis
    }

    public var identifier: String { "flip(axis=\(axis.rawValue))" }

    public func transform(_ image: Image) throws -> Image {
        try (axis == .h ? Transposition.flipHorizontal : .flipVertical).apply(to: image)
    }
}
