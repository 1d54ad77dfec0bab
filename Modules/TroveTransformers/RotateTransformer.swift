import TroveCore

/// Rotates clockwise by a quarter, half or three-quarter turn; exact. Width and height swap for 90 and 270.
public struct RotateTransformer: ImageTransformer, Equatable {
    /// A clockwise turn in degrees; the raw value is the spec's `deg`.
    public enum Angle: Int, Sendable, CaseIterable {
        /// A quarter (90°), half (180°) or three-quarter (270°) turn clockwise.
        case clockwise90 = 90, clockwise180 = 180, clockwise270 = 270
    }

    /// How far to turn, clockwise.
    package let angle: Angle

    /// A rotation by `angle`.
    public init(_ angle: Angle) {
        self.angle = angle
    }

    /// "rotate(deg=90)", "rotate(deg=180)" or "rotate(deg=270)".
    public var identifier: String { "rotate(deg=\(angle.rawValue))" }

    /// The turned image and frames, as RGBA8.
    public func transform(_ image: Image) throws -> Image {
        let transposition: Transposition =
            switch angle {
            case .clockwise90: .rotate90Clockwise
            case .clockwise180: .rotate180
            case .clockwise270: .rotate270Clockwise
            }
        return try transposition.apply(to: image)
    }
}
