/// Where imgproxy keeps the part of an image it cuts down: a compass anchor with offsets, or a focus point.
public enum ImgproxyGravity: Sendable, Equatable, CustomStringConvertible {
    /// The edges or corner an anchor keeps, by imgproxy's names.
    public enum Anchor: String, Sendable, CaseIterable {
        case north = "no", south = "so", east = "ea", west = "we"
        case northEast = "noea", northWest = "nowe", southEast = "soea", southWest = "sowe"
        case center = "ce"
    }

    /// Offsets move the kept area away from the anchor's edge (towards the centre for edges, right/down for
    /// the centre): 1 or more is pixels (times `dpr` when cutting the resized image), less than 1 a
    /// fraction of the image's size.
    case anchor(Anchor, xOffset: Double = 0, yOffset: Double = 0)
    /// The kept area is centred on (x, y), fractions of the width and height (0...1), as far as it fits.
    case focusPoint(x: Double, y: Double)

    /// imgproxy's default: the centre, no offsets.
    public static let center = ImgproxyGravity.anchor(.center)

    /// Canonical text for cache keys, e.g. "ce:0.0:0.0" or "fp:0.25:0.5".
    public var description: String {
        switch self {
        case let .anchor(anchor, x, y): "\(anchor.rawValue):\(x):\(y)"
        case let .focusPoint(x, y): "fp:\(x):\(y)"
        }
    }

    /// The top-left corner of an `inner`-sized area placed in an `outer`-sized one by this gravity, kept
    /// inside it. Absolute offsets are multiplied by `offsetScale`.
    func origin(outerWidth: Int, outerHeight: Int, innerWidth: Int, innerHeight: Int,
                offsetScale: Double = 1) -> (x: Int, y: Int) {
        func offset(_ value: Double, _ size: Int) -> Int {
            abs(value) < 1 ? Int((value * Double(size)).rounded()) : Int((value * offsetScale).rounded())
        }
        var x: Int, y: Int
        switch self {
        case let .focusPoint(fx, fy):
            x = Int((fx * Double(outerWidth)).rounded()) - innerWidth / 2
            y = Int((fy * Double(outerHeight)).rounded()) - innerHeight / 2
        case let .anchor(anchor, offsetX, offsetY):
            let dx = offset(offsetX, outerWidth), dy = offset(offsetY, outerHeight)
            let centreX = (outerWidth - innerWidth + 1) / 2, centreY = (outerHeight - innerHeight + 1) / 2
            switch anchor {
            case .west, .northWest, .southWest: x = dx
            case .east, .northEast, .southEast: x = outerWidth - innerWidth - dx
            case .north, .south, .center: x = centreX + dx
            }
            switch anchor {
            case .north, .northEast, .northWest: y = dy
            case .south, .southEast, .southWest: y = outerHeight - innerHeight - dy
            case .east, .west, .center: y = centreY + dy
            }
        }
        x = min(max(x, 0), max(outerWidth - innerWidth, 0))
        y = min(max(y, 0), max(outerHeight - innerHeight, 0))
        return (x, y)
    }
}
