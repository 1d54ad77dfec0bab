import TroveCore

/// Turns an image upright by applying the EXIF orientation its decoder recorded (`Image.orientation`),
/// then records `.up` so it is never applied twice. Images already `.up` pass through unchanged.
public struct OrientTransformer: ImageTransformer, Equatable {
    public init() {}

    public var identifier: String { "orient" }

    public func transform(_ image: Image) throws -> Image {
        guard image.orientation != .up else { return image }
        return try Transposition(undoing: image.orientation).apply(to: image, orientation: .up)
    }
}
