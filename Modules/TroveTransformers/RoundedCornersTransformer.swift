import TroveCore

/// Rounds the corners: each corner becomes a quarter circle of `radius` pixels, cut out of alpha with
/// an antialiased edge. A radius over half the shorter side is reduced to it (a pill or a circle).
public struct RoundedCornersTransformer: ImageTransformer, Equatable {
    /// Corner radius in pixels (0 or more); at run time at most half the image's shorter side.
    package let radius: Int

    /// Corners of `radius` pixels; a negative radius is raised to 0 (no rounding).
    public init(radius: Int) {
        self.radius = max(radius, 0)
    }

    /// "round(radius=R)", e.g. "round(radius=16)".
    public var identifier: String { "round(radius=\(radius))" }

    /// The image and frames (RGBA8) with transparent rounded corners; returned as is when the radius comes to 0.
    public func transform(_ image: Image) throws -> Image {
        let width = image.width, height = image.height
        let r = min(radius, width / 2, height / 2)
        guard r > 0 else { return image }
        let radius = Double(r)
        return try image.mappingEveryFrame { src, dst in
            _ = dst.update(fromContentsOf: src)
            // Only the four r x r corner squares change; the circle centres sit r in from each corner.
            for y in 0..<r {
                for x in 0..<r {
                    let coverage = circleCoverage(
                        pixelX: x, pixelY: y, centreX: radius, centreY: radius,
                        radius: radius)
                    guard coverage < 1 else { continue }
                    let top = y * width, bottom = (height - 1 - y) * width, right = width - 1 - x
                    applyCoverage(coverage, src, dst, at: (top + x) * 4)
                    applyCoverage(coverage, src, dst, at: (top + right) * 4)
                    applyCoverage(coverage, src, dst, at: (bottom + x) * 4)
                    applyCoverage(coverage, src, dst, at: (bottom + right) * 4)
                }
            }
        }
    }
}
