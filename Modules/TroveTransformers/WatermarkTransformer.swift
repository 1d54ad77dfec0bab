import TroveCore

/// Lays a watermark image over the image at one of nine positions, or tiled (`repeat`), at `opacity`.
/// Offsets move it inwards from the edge it sits against (along +x/+y for the centre) or, tiled, space
/// the tiles; values of 1 or more (or -1 or less) are pixels, between them fractions of the image's
/// size. `scale` above 0 first fits the watermark into that fraction of the image's width and height.
/// imgproxy's `watermark`.
public struct WatermarkTransformer: ImageTransformer, Equatable {
    /// Where the watermark goes; raw values are imgproxy's names (and appear in `identifier`).
    package enum Position: String, Sendable, CaseIterable {
        /// Centred.
        case center = "ce"
        /// Against the top edge, centred along it.
        case north = "no"
        /// Against the bottom edge.
        case south = "so"
        /// Against the right edge.
        case east = "ea"
        /// Against the left edge.
        case west = "we"
        /// In the top-right corner.
        case northEast = "noea"
        /// In the top-left corner.
        case northWest = "nowe"
        /// In the bottom-right corner.
        case southEast = "soea"
        /// In the bottom-left corner.
        case southWest = "sowe"
        /// Tiled over the whole image from the top-left corner.
        case tiled = "re"
    }

    /// The watermark, any size.
    package let mark: Image
    /// 0 (invisible) ... 1 (the watermark's own alpha).
    package let opacity: Double
    /// Where it goes.
    package let position: Position
    /// Horizontal offset (or spacing between tiles).
    package let xOffset: Double
    /// Vertical offset (or spacing between tiles).
    package let yOffset: Double
    /// Above 0: the watermark is fitted into this fraction of the image's size first.
    package let scale: Double
    /// A digest of the watermark's pixels, so a different watermark never shares a cached result.
    private let markDigest: UInt64

    /// A watermark placed by `gravity` (the crop's nine anchors), or tiled over the whole image from the
    /// top-left corner when `tiled` is true (then `gravity` is unused). `opacity` is clamped to 0...1 and
    /// `scale` to 0...1.
    public init(
        mark: Image, opacity: Double = 1, gravity: CropTransformer.Gravity = .center, tiled: Bool = false,
        xOffset: Double = 0, yOffset: Double = 0, scale: Double = 0
    ) {
        self.init(
            mark: mark, opacity: opacity, position: tiled ? .tiled : Position(gravity), xOffset: xOffset,
            yOffset: yOffset, scale: scale)
    }

    /// A watermark at one of imgproxy's positions, as the server parses them.
    package init(
        mark: Image, opacity: Double = 1, position: Position = .center, xOffset: Double = 0,
        yOffset: Double = 0, scale: Double = 0
    ) {
        self.mark = mark.convertedToRGBA8()
        self.opacity = opacity.isNaN ? 1 : min(max(opacity, 0), 1)
        self.position = position
        self.xOffset = xOffset.isFinite ? xOffset : 0
        self.yOffset = yOffset.isFinite ? yOffset : 0
        self.scale = scale.isFinite ? min(max(scale, 0), 1) : 0
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in self.mark.pixels {
            digest = (digest ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        digest = (digest ^ UInt64(self.mark.width)) &* 0x0000_0100_0000_01b3
        markDigest = digest
    }

    /// "watermark(mark=digest/WxH,opacity=O,pos=P,x=X,y=Y,scale=S)".
    public var identifier: String {
        "watermark(mark=\(String(markDigest, radix: 16))/\(mark.width)x\(mark.height),opacity=\(opacity),"
            + "pos=\(position.rawValue),x=\(xOffset),y=\(yOffset),scale=\(scale))"
    }

    /// The image with the watermark blended over it; every animation frame gets it too.
    public func transform(_ image: Image) throws -> Image {
        guard opacity > 0, mark.width > 0, mark.height > 0, image.width > 0, image.height > 0 else { return image }
        var stamp = mark
        if scale > 0 {
            let boxWidth = max(1, Int((Double(image.width) * scale).rounded()))
            let boxHeight = max(1, Int((Double(image.height) * scale).rounded()))
            stamp = try ResizeTransformer(
                width: boxWidth, height: boxHeight, mode: .fit, filter: .lanczos3, upscale: true
            ).transform(stamp)
        }
        let width = image.width, height = image.height
        func pixels(_ value: Double, _ size: Int) -> Int {
            abs(value) >= 1 ? Int(value.rounded()) : Int((value * Double(size)).rounded())
        }
        let dx = pixels(xOffset, width), dy = pixels(yOffset, height)
        var origins: [(x: Int, y: Int)] = []
        if position == .tiled {
            let stepX = max(1, stamp.width + dx), stepY = max(1, stamp.height + dy)
            var y = 0
            while y < height {
                var x = 0
                while x < width {
                    origins.append((x, y))
                    x += stepX
                }
                y += stepY
            }
        } else {
            let x: Int, y: Int
            switch position {
            case .west, .northWest, .southWest: x = dx
            case .east, .northEast, .southEast: x = width - stamp.width - dx
            default: x = (width - stamp.width) / 2 + dx
            }
            switch position {
            case .north, .northEast, .northWest: y = dy
            case .south, .southEast, .southWest: y = height - stamp.height - dy
            default: y = (height - stamp.height) / 2 + dy
            }
            origins.append((x, y))
        }
        let markPixels = stamp.pixels, markWidth = stamp.width, markHeight = stamp.height
        let strength = Int((opacity * 256).rounded())
        return try image.mappingEveryFrame { src, dst in
            if let source = src.baseAddress, let destination = dst.baseAddress {
                destination.update(from: source, count: min(src.count, dst.count))
            }
            markPixels.withUnsafeBufferPointer { markBytes in
                for origin in origins {
                    let firstX = max(origin.x, 0), lastX = min(origin.x + markWidth, width)
                    let firstY = max(origin.y, 0), lastY = min(origin.y + markHeight, height)
                    guard firstX < lastX, firstY < lastY else { continue }
                    for y in firstY..<lastY {
                        for x in firstX..<lastX {
                            let m = ((y - origin.y) * markWidth + (x - origin.x)) * 4
                            let alpha = (Int(markBytes[m + 3]) * strength + 128) >> 8
                            guard alpha > 0 else { continue }
                            let d = (y * width + x) * 4
                            Self.blend(markBytes, m, alpha: alpha, into: dst, d)
                        }
                    }
                }
            }
        }
    }

    /// Source-over of one watermark pixel (of effective alpha `alpha`, 0...255) onto a straight-alpha pixel.
    @inline(__always)
    private static func blend(
        _ mark: UnsafeBufferPointer<UInt8>, _ m: Int, alpha: Int, into dst: UnsafeMutableBufferPointer<UInt8>,
        _ d: Int
    ) {
        let below = Int(dst[d + 3])
        // out alpha = a + b (1 - a), in 0...255 * 255.
        let outAlpha255 = alpha * 255 + below * (255 - alpha)
        guard outAlpha255 > 0 else { return }
        for channel in 0..<3 {
            let value =
                (Int(mark[m + channel]) * alpha * 255 + Int(dst[d + channel]) * below * (255 - alpha)
                    + outAlpha255 / 2) / outAlpha255
            dst[d + channel] = UInt8(clamping: value)
        }
        dst[d + 3] = UInt8(clamping: (outAlpha255 + 127) / 255)
    }
}

extension WatermarkTransformer.Position {
    /// The position of a crop gravity's anchor.
    init(_ gravity: CropTransformer.Gravity) {
        self =
            switch gravity {
            case .center: .center
            case .north: .north
            case .south: .south
            case .east: .east
            case .west: .west
            case .northeast: .northEast
            case .northwest: .northWest
            case .southeast: .southEast
            case .southwest: .southWest
            }
    }
}
