/// Where imgproxy keeps the part of an image it cuts down: a compass anchor with offsets, or a focus point.
package enum ImgproxyGravity: Sendable, Equatable, CustomStringConvertible {
    /// The edges or corner an anchor keeps, by imgproxy's names.
    package enum Anchor: String, Sendable, CaseIterable {
        /// The top edge, `no`.
        case north = "no"
        /// The bottom edge, `so`.
        case south = "so"
        /// The right edge, `ea`.
        case east = "ea"
        /// The left edge, `we`.
        case west = "we"
        /// The top-right corner, `noea`.
        case northEast = "noea"
        /// The top-left corner, `nowe`.
        case northWest = "nowe"
        /// The bottom-right corner, `soea`.
        case southEast = "soea"
        /// The bottom-left corner, `sowe`.
        case southWest = "sowe"
        /// The middle, `ce`.
        case center = "ce"
    }

    /// Offsets move the kept area away from the anchor's edge (towards the centre for edges, right/down for
    /// the centre): 1 or more is pixels (times `dpr` when cutting the resized image), less than 1 a
    /// fraction of the image's size.
    case anchor(Anchor, xOffset: Double = 0, yOffset: Double = 0)
    /// The kept area is centred on (x, y), fractions of the width and height (0...1), as far as it fits.
    case focusPoint(x: Double, y: Double)
    /// imgproxy's `sm`: the kept area is placed over the most interesting part of the image, judged from its
    /// pixels (edges, saturation, skin tones) once it has been reduced; without pixels, the centre.
    case smart

    /// imgproxy's default: the centre, no offsets.
    package static let center = ImgproxyGravity.anchor(.center)

    /// Canonical text for cache keys, e.g. "ce:0.0:0.0" or "fp:0.25:0.5".
    package var description: String {
        switch self {
        case let .anchor(anchor, x, y): "\(anchor.rawValue):\(x):\(y)"
        case let .focusPoint(x, y): "fp:\(x):\(y)"
        case .smart: "sm"
        }
    }

    /// The top-left corner of an `inner`-sized area placed in an `outer`-sized one by this gravity, kept
    /// inside it. Absolute offsets are multiplied by `offsetScale`.
    func origin(
        outerWidth: Int, outerHeight: Int, innerWidth: Int, innerHeight: Int,
        offsetScale: Double = 1
    ) -> (x: Int, y: Int) {
        func offset(_ value: Double, _ size: Int) -> Int {
            abs(value) < 1 ? Int((value * Double(size)).rounded()) : Int((value * offsetScale).rounded())
        }
        var x: Int, y: Int
        switch self {
        case .smart:
            x = (outerWidth - innerWidth + 1) / 2
            y = (outerHeight - innerHeight + 1) / 2
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

extension ImgproxyGravity {
    /// This gravity as seen on the image before it is turned clockwise by `degrees` (0, 90, 180 or 270):
    /// cutting there and then turning keeps what cutting the turned image with this gravity keeps.
    func beforeRotation(_ degrees: Int) -> ImgproxyGravity {
        switch self {
        case .smart:
            return self
        case let .focusPoint(x, y):
            return switch degrees {
            case 90: .focusPoint(x: y, y: 1 - x)
            case 180: .focusPoint(x: 1 - x, y: 1 - y)
            case 270: .focusPoint(x: 1 - y, y: x)
            default: self
            }
        case let .anchor(anchor, xOffset, yOffset):
            let x = AxisPlacement(edge: anchor.horizontalEdge, offset: xOffset)
            let y = AxisPlacement(edge: anchor.verticalEdge, offset: yOffset)
            // Turning clockwise by 90 puts the stored image's x axis down the output's y axis, and its
            // y axis along the output's x axis reversed.
            let (sourceX, sourceY): (AxisPlacement, AxisPlacement) =
                switch degrees {
                case 90: (y, x.reversed)
                case 180: (x.reversed, y.reversed)
                case 270: (y.reversed, x)
                default: (x, y)
                }
            return .anchor(
                Anchor(horizontal: sourceX.edge, vertical: sourceY.edge),
                xOffset: sourceX.offset, yOffset: sourceY.offset)
        }
    }
}

/// Where along one axis an anchor sits.
enum AxisEdge {
    case start, middle, end
}

/// One axis of an anchored gravity: the edge, and the offset as imgproxy reads it there (inwards from an
/// edge, towards +x or +y from the middle).
private struct AxisPlacement {
    var edge: AxisEdge
    var offset: Double

    /// The same placement read along the axis pointing the other way.
    var reversed: AxisPlacement {
        switch edge {
        case .start: AxisPlacement(edge: .end, offset: offset)
        case .end: AxisPlacement(edge: .start, offset: offset)
        case .middle: AxisPlacement(edge: .middle, offset: offset == 0 ? 0 : -offset)
        }
    }
}

extension ImgproxyGravity.Anchor {
    var horizontalEdge: AxisEdge {
        switch self {
        case .west, .northWest, .southWest: .start
        case .east, .northEast, .southEast: .end
        case .north, .south, .center: .middle
        }
    }

    var verticalEdge: AxisEdge {
        switch self {
        case .north, .northEast, .northWest: .start
        case .south, .southEast, .southWest: .end
        case .east, .west, .center: .middle
        }
    }

    init(horizontal: AxisEdge, vertical: AxisEdge) {
        self =
            switch (horizontal, vertical) {
            case (.start, .start): .northWest
            case (.middle, .start): .north
            case (.end, .start): .northEast
            case (.start, .middle): .west
            case (.middle, .middle): .center
            case (.end, .middle): .east
            case (.start, .end): .southWest
            case (.middle, .end): .south
            case (.end, .end): .southEast
            }
    }
}
