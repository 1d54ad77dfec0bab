import TroveCore

/// Crops the centred square of the image's shorter side and cuts the largest circle out of it, with an
/// antialiased edge: the usual avatar shape. Outside the circle pixels become fully transparent.
public struct CircleTransformer: ImageTransformer, Equatable {
    /// The circle mask; it has no settings.
    public init() {}

    /// "circle".
    public var identifier: String { "circle" }

    /// The centred square of side min(width, height), transparent outside its inscribed circle; RGBA8. An empty
    /// image is returned as is.
    public func transform(_ image: Image) throws -> Image {
        let side = min(image.width, image.height)
        guard side > 0 else { return image }
        let square = try CropTransformer(width: side, height: side, gravity: .center).transform(image)
        let radius = Double(side) / 2
        return try square.mappingEveryFrame { src, dst in
            for y in 0..<side {
                for x in 0..<side {
                    let coverage = circleCoverage(
                        pixelX: x, pixelY: y, centreX: radius, centreY: radius,
                        radius: radius)
                    applyCoverage(coverage, src, dst, at: (y * side + x) * 4)
                }
            }
        }
    }
}
