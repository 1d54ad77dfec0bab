import TroveCore

/// Keeps a rectangle of the image: either given by its top-left corner and size, or a size placed by
/// gravity (centred, against an edge, or in a corner). Exact: pixels are copied, not resampled.
///
/// A rectangle reaching past the image keeps only the part inside it; a size larger than the image
/// is cut down to the image on that axis. A rectangle wholly outside the image is an error.
public struct CropTransformer: ImageTransformer, Equatable {
    /// Where a crop of a given size sits in the image; the raw value is the spec name (`gravity=north`).
    public enum Gravity: String, Sendable, CaseIterable {
        /// `center` centres it; `north`, `south`, `east` and `west` put it against that edge, centred along it;
        /// `northeast`, `northwest`, `southeast` and `southwest` put it in that corner.
        case center, north, south, east, west, northeast, northwest, southeast, southwest
    }

    /// How the rectangle is positioned: by its corner or by gravity.
    package enum Placement: Sendable, Equatable {
        /// Top-left corner in pixels.
        case origin(x: Int, y: Int)
        /// A size placed by gravity, clipped to the image first.
        case gravity(Gravity)
    }

    /// Width of the kept rectangle in pixels (at least 1).
    package let width: Int
    /// Height of the kept rectangle in pixels (at least 1).
    package let height: Int
    /// Where the rectangle is: its top-left corner, or a gravity.
    package let placement: Placement

    /// Sizes below 1 are raised to 1, negative corners to 0 (the "crop" factory rejects such values instead).
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.init(width: width, height: height, placement: .origin(x: max(x, 0), y: max(y, 0)))
    }

    /// A `width` by `height` rectangle placed by `gravity` (default centred); sizes below 1 are raised to 1.
    public init(width: Int, height: Int, gravity: Gravity = .center) {
        self.init(width: width, height: height, placement: .gravity(gravity))
    }

    private init(width: Int, height: Int, placement: Placement) {
        self.width = max(width, 1)
        self.height = max(height, 1)
        self.placement = placement
    }

    /// "crop(x=X,y=Y,w=W,h=H)" for a corner, "crop(w=W,h=H,gravity=G)" for a gravity.
    public var identifier: String {
        switch placement {
        case let .origin(x, y): "crop(x=\(x),y=\(y),w=\(width),h=\(height))"
        case let .gravity(gravity): "crop(w=\(width),h=\(height),gravity=\(gravity.rawValue))"
        }
    }

    /// The kept rectangle within an image of this size, clipped to it; nil when nothing is left.
    func rectangle(inWidth imageWidth: Int, height imageHeight: Int) -> (x: Int, y: Int, width: Int, height: Int)? {
        switch placement {
        case let .origin(x, y):
            let right = min(imageWidth, x.addingReportingOverflow(width).overflow ? Int.max : x + width)
            let bottom = min(imageHeight, y.addingReportingOverflow(height).overflow ? Int.max : y + height)
            guard x < right, y < bottom else { return nil }
            return (x, y, right - x, bottom - y)
        case let .gravity(gravity):
            let w = min(width, imageWidth), h = min(height, imageHeight)
            guard w > 0, h > 0 else { return nil }
            let spareX = imageWidth - w, spareY = imageHeight - h
            let x: Int =
                switch gravity {
                case .west, .northwest, .southwest: 0
                case .east, .northeast, .southeast: spareX
                case .center, .north, .south: spareX / 2
                }
            let y: Int =
                switch gravity {
                case .north, .northeast, .northwest: 0
                case .south, .southeast, .southwest: spareY
                case .center, .east, .west: spareY / 2
                }
            return (x, y, w, h)
        }
    }

    /// Copies the kept rectangle out of the image and every frame (RGBA8), or returns the image unchanged when
    /// the rectangle covers it. Throws `invalidTransformParameter` when the rectangle lies wholly outside it.
    public func transform(_ image: Image) throws -> Image {
        guard let rect = rectangle(inWidth: image.width, height: image.height) else {
            throw TroveError.invalidTransformParameter(
                transform: "crop", parameter: "x",
                reason: "the rectangle \(identifier) lies outside the \(image.width)x\(image.height) image; "
                    + "give a corner inside it")
        }
        if rect == (0, 0, image.width, image.height) { return image }
        let sourceRowBytes = image.width * 4, rowBytes = rect.width * 4
        return try image.mappingEveryFrame(toWidth: rect.width, height: rect.height) { src, dst in
            for row in 0..<rect.height {
                let from = (rect.y + row) * sourceRowBytes + rect.x * 4
                _ = UnsafeMutableBufferPointer(rebasing: dst[row * rowBytes..<(row + 1) * rowBytes])
                    .update(fromContentsOf: src[from..<from + rowBytes])
            }
        }
    }
}
