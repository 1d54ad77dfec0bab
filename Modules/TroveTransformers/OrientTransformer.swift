import TroveCore

/// Turns an image upright by applying the EXIF orientation its decoder recorded (`Image.orientation`),
/// then records `.up` so it is never applied twice. Images already `.up` pass through unchanged.
public struct OrientTransformer: ImageTransformer, Equatable {
    /// The orient transform; it has no settings.
    public init() {}

    /// "orient".
    public var identifier: String { "orient" }

    /// The image and frames (RGBA8) turned and mirrored so they stand upright, with `orientation` set to `.up`;
    /// width and height swap for the orientations that turn a quarter.
    public func transform(_ image: Image) throws -> Image {
        guard image.orientation != .up else { return image }
        return try Transposition(undoing: image.orientation).apply(to: image, orientation: .up)
    }
}

extension OrientTransformer {
    /// `transforms` with `orient` put first, so every size, box and crop after it applies to the picture as
    /// displayed; unchanged when the caller keeps the stored orientation or the chain already starts by
    /// orienting. The one rule every caller (pipeline, CLI, server) uses.
    package static func upright(
        _ transforms: [any ImageTransformer], keepsStoredOrientation: Bool = false
    ) -> [any ImageTransformer] {
        if keepsStoredOrientation || transforms.first is OrientTransformer { return transforms }
        return [OrientTransformer()] + transforms
    }
}
