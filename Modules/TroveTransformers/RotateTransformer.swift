import TroveCore

/// Rotates clockwise by a quarter, half or three-quarter turn; exact. Width and height swap for 90 and 270.
public struct RotateTransformer: ImageTransformer, Equatable {
    public enum Angle: Int, Sendable, CaseIterable {
        case clockwise90 = 90, clockwise180 = 180, clockwise270 = 270
    }

    public let angle: Angle

    public init(_ angle: Angle) {
        self.angle = angle
    }

    public var identifier: String { "rotate(deg=\(angle.rawValue))" }

    public func transform(_ image: Image) throws -> Image {
        let transposition: Transposition = switch angle {
        case .clockwise90: .rotate90Clockwise
        case .clockwise180: .rotate180
        case .clockwise270: .rotate270Clockwise
        }
        return try transposition.apply(to: image)
    }
}
