import Trove
import TroveTransformers

/// imgproxy's geometry in one transformer: crop (before resizing), resize by resizing type, then cut the
/// result to the requested size by gravity. Planned at transform time from the image's actual size, and
/// carried out with TroveTransformers' exact crop and resampling resize.
///
/// As a `DownscalingTransformer` it lets the pipeline decode a reduced copy when it shrinks (shrink-on-load);
/// the crop region is then scaled to the reduced copy and the output size stays the same.
package struct ImgproxyResize: DownscalingTransformer, Equatable {
    /// imgproxy's resizing types.
    package enum ResizingType: String, Sendable, CaseIterable {
        /// Keep the aspect ratio, inside the box.
        case fit
        /// Keep the aspect ratio, cover the box, cut what projects by gravity.
        case fill
        /// As fill; when the image would have to be enlarged (and may not be), cut it to the box's aspect ratio.
        case fillDown = "fill-down"
        /// Exactly the box, aspect ratio ignored.
        case force
        /// Fill when the image and the box are both portrait or both landscape, else fit.
        case auto
    }

    /// The area to keep before resizing. Sizes of 1 or more are pixels, below 1 fractions of the image,
    /// 0 the whole width or height.
    package struct Crop: Sendable, Equatable {
        /// Pixels (1 or more), a fraction of the width (below 1), or 0 for all of it.
        package var width: Double
        /// As `width`, for the height.
        package var height: Double
        /// Nil uses the resize's gravity.
        package var gravity: ImgproxyGravity?

        /// A crop of `width` by `height` placed by `gravity`.
        package init(width: Double, height: Double, gravity: ImgproxyGravity? = nil) {
            self.width = width
            self.height = height
            self.gravity = gravity
        }
    }

    /// How the image meets the target box.
    package var resizingType: ResizingType
    /// Target width in CSS pixels; 0 follows the height and the aspect ratio (keeps the width for force).
    package var width: Int
    /// Target height; 0 as for `width`.
    package var height: Int
    /// Whether an image smaller than the box may be enlarged.
    package var enlarge: Bool
    /// Device pixel ratio: multiplies the target size (never past the source's size unless `enlarge`).
    package var dpr: Double
    /// What fill keeps of the scaled image, and where a crop without its own gravity is placed.
    package var gravity: ImgproxyGravity
    /// The area kept before resizing; nil keeps the whole image.
    package var crop: Crop?
    /// The resampling filter; imgproxy's default is Lanczos-3.
    package var filter: ResizeTransformer.Filter
    /// Largest width or height the resampled image may have (imgproxy's `max_result_dimension`): past it
    /// `transform` throws a 422 `ImgproxyURLError` before allocating. A fill or a size given on one axis
    /// can ask for far more than the URL's numbers say (an enlarged strip), so this is checked on the
    /// planned size. Not part of `identifier`: it refuses results, it never changes one.
    package var maxResultDimension: Int
    /// `zoom`/`z`: multiplies the target size like `dpr`, without scaling gravity offsets.
    package var zoomX: Double = 1
    /// As `zoomX`, for the height.
    package var zoomY: Double = 1
    /// `min-width`/`mw`: the resized image is at least this wide (CSS pixels, times dpr); 0 is none.
    package var minWidth = 0
    /// `min-height`/`mh`: as `minWidth`, for the height.
    package var minHeight = 0
    /// `extend`/`ex`: where an image smaller than the requested size sits on a canvas of that size
    /// (transparent, flattened later by `background`); nil does not extend.
    package var extend: ImgproxyGravity?
    /// `extend_aspect_ratio`/`exar`: where the image sits on a canvas grown to the requested aspect ratio;
    /// nil does not extend.
    package var extendAspectRatio: ImgproxyGravity?

    /// A resize as imgproxy's options describe it; every argument defaults to imgproxy's default.
    package init(
        resizingType: ResizingType = .fit, width: Int = 0, height: Int = 0, enlarge: Bool = false,
        dpr: Double = 1, gravity: ImgproxyGravity = .center, crop: Crop? = nil,
        filter: ResizeTransformer.Filter = .lanczos3, maxResultDimension: Int = .max
    ) {
        self.resizingType = resizingType
        self.width = max(width, 0)
        self.height = max(height, 0)
        self.enlarge = enlarge
        self.dpr = dpr > 0 && dpr.isFinite ? dpr : 1
        self.gravity = gravity
        self.crop = crop
        self.filter = filter
        self.maxResultDimension = max(1, maxResultDimension)
    }

    /// Every argument that changes the result, for the cache key.
    package var identifier: String {
        let cropText = crop.map { "\($0.width):\($0.height):\($0.gravity?.description ?? "-")" } ?? "none"
        var text =
            "imgproxy.resize(rt=\(resizingType.rawValue),w=\(width),h=\(height),el=\(enlarge),dpr=\(dpr),"
            + "g=\(gravity),crop=\(cropText),filter=\(filter.rawValue)"
        // Only options that are set, so results cached before they existed keep their keys.
        if zoomX != 1 || zoomY != 1 { text += ",zoom=\(zoomX):\(zoomY)" }
        if minWidth != 0 || minHeight != 0 { text += ",min=\(minWidth):\(minHeight)" }
        if let extend { text += ",ex=\(extend)" }
        if let extendAspectRatio { text += ",exar=\(extendAspectRatio)" }
        return text + ")"
    }

    /// The size `transform` gives an image of this size.
    package func outputSize(for source: PixelSize) -> PixelSize {
        let plan = plan(for: source)
        return PixelSize(width: plan.result.width, height: plan.result.height)
    }

    /// The image cut and resized as the plan for its size says.
    package func transform(_ image: Image) throws -> Image {
        try plan(for: PixelSize(width: image.width, height: image.height)).apply(to: image, filter: filter)
    }

    /// The smallest reduced decode that still gives the same result, `reducingGap` times the output.
    package func minimumSourceSize(for source: PixelSize, reducingGap: Double) -> PixelSize? {
        guard filter != .nearest, source.width > 0, source.height > 0 else { return nil }
        let plan = plan(for: source)
        guard plan.scaledWidth < plan.region.width || plan.scaledHeight < plan.region.height else { return nil }
        // Reducing by r leaves region * r pixels per axis; keep that at least gap * the resized size.
        let width = min(
            source.width,
            Int(
                (reducingGap * Double(plan.scaledWidth) * Double(source.width)
                    / Double(plan.region.width)).rounded(.up)))
        let height = min(
            source.height,
            Int(
                (reducingGap * Double(plan.scaledHeight) * Double(source.height)
                    / Double(plan.region.height)).rounded(.up)))
        guard width < source.width || height < source.height else { return nil }
        return PixelSize(width: max(width, 1), height: max(height, 1))
    }

    /// The same resize for a source decoded reduced: crops and offsets scaled to the reduced size.
    package func forReducedSource(
        _ reduced: PixelSize, of source: PixelSize, byBlocks: Bool, reversed: (x: Bool, y: Bool)
    ) -> any ImageTransformer {
        guard reduced != source else { return self }
        let plan = plan(for: source).scaled(from: source, to: reduced, byBlocks: byBlocks, reversed: reversed)
        return ReducedImgproxyResize(identifier: identifier, reducedSize: reduced, plan: plan, filter: filter)
    }

    /// imgproxy's arithmetic: the crop region, the scale for each axis, and the cut of the scaled image.
    func plan(for source: PixelSize) -> ImgproxyResizePlan {
        let sourceWidth = max(source.width, 1), sourceHeight = max(source.height, 1)
        var region = PixelRect(x: 0, y: 0, width: sourceWidth, height: sourceHeight)
        if let crop {
            func size(_ value: Double, _ whole: Int) -> Int {
                // 1 or more: pixels; below 1: a fraction of the image; 0: all of it.
                let pixels =
                    value >= 1
                    ? Int(value)
                    : value > 0 ? max(1, Int((value * Double(whole)).rounded())) : whole
                return min(pixels, whole)
            }
            let w = size(crop.width, sourceWidth), h = size(crop.height, sourceHeight)
            let origin = (crop.gravity ?? gravity).origin(
                outerWidth: sourceWidth, outerHeight: sourceHeight,
                innerWidth: w, innerHeight: h)
            region = PixelRect(x: origin.x, y: origin.y, width: w, height: h)
        }

        let regionWidth = Double(region.width), regionHeight = Double(region.height)
        let boxWidth = width == 0 ? regionWidth : Double(width)
        let boxHeight = height == 0 ? regionHeight : Double(height)
        var shrinkX = boxWidth == regionWidth ? 1 : regionWidth / boxWidth
        var shrinkY = boxHeight == regionHeight ? 1 : regionHeight / boxHeight
        var type = resizingType
        if type == .auto {
            let sameOrientation = (regionWidth >= regionHeight) == (boxWidth >= boxHeight)
            type = sameOrientation ? .fill : .fit
        }
        if shrinkX != 1 || shrinkY != 1 {
            if width == 0 && height == 0 {
                // Only a minimum size or a zoom: keep the aspect ratio.
            } else if width == 0 && type != .force {
                shrinkX = shrinkY
            } else if height == 0 && type != .force {
                shrinkY = shrinkX
            } else if type == .fit {
                shrinkX = max(shrinkX, shrinkY)
                shrinkY = shrinkX
            } else if type == .fill || type == .fillDown {
                shrinkX = min(shrinkX, shrinkY)
                shrinkY = shrinkX
            }
        }
        shrinkX /= zoomX
        shrinkY /= zoomY
        var dprScale = dpr
        if !enlarge {
            let smallest = min(shrinkX, shrinkY)
            if smallest < 1 {
                // Would enlarge: keep the scale at 1 on the axis that grows most.
                shrinkX /= smallest
                shrinkY /= smallest
                dprScale /= smallest
            }
            // dpr may take the image up to, never past, its own size.
            dprScale = min(dprScale, min(shrinkX, shrinkY))
        }
        // min-width/min-height: shrink less when the result would be narrower (or shorter) than asked; after the
        // clamp above, as imgproxy applies them, so they enlarge a smaller image (times dpr, as the rest).
        if minWidth > 0 {
            let most = regionWidth / Double(minWidth)
            if most < shrinkX {
                shrinkY /= shrinkX / most
                shrinkX = most
            }
        }
        if minHeight > 0 {
            let most = regionHeight / Double(minHeight)
            if most < shrinkY {
                shrinkX /= shrinkY / most
                shrinkY = most
            }
        }
        shrinkX = min(shrinkX / dprScale, regionWidth)
        shrinkY = min(shrinkY / dprScale, regionHeight)
        let scaledWidth = max(1, Int((regionWidth / shrinkX).rounded()))
        let scaledHeight = max(1, Int((regionHeight / shrinkY).rounded()))

        let targetWidth = width == 0 ? scaledWidth : max(1, Int((Double(width) * dprScale * zoomX).rounded()))
        let targetHeight = height == 0 ? scaledHeight : max(1, Int((Double(height) * dprScale * zoomY).rounded()))
        var cutWidth = targetWidth, cutHeight = targetHeight
        if resizingType == .fillDown && !enlarge {
            // Too small to fill the box: cut to the box's aspect ratio instead of to its size.
            let growX = Double(targetWidth) / Double(scaledWidth), growY = Double(targetHeight) / Double(scaledHeight)
            if growX > growY && growX > 1 {
                cutWidth = scaledWidth
                cutHeight = max(1, Int((Double(scaledWidth) * Double(targetHeight) / Double(targetWidth)).rounded()))
            } else if growY > growX && growY > 1 {
                cutWidth = max(1, Int((Double(scaledHeight) * Double(targetWidth) / Double(targetHeight)).rounded()))
                cutHeight = scaledHeight
            }
        }
        cutWidth = min(cutWidth, scaledWidth)
        cutHeight = min(cutHeight, scaledHeight)
        let cutOrigin = gravity.origin(
            outerWidth: scaledWidth, outerHeight: scaledHeight, innerWidth: cutWidth,
            innerHeight: cutHeight, offsetScale: dprScale)
        return ImgproxyResizePlan(
            region: region, scaledWidth: scaledWidth, scaledHeight: scaledHeight,
            result: PixelRect(
                x: cutOrigin.x, y: cutOrigin.y, width: cutWidth,
                height: cutHeight),
            maxDimension: maxResultDimension,
            smartRegion: crop != nil && (crop?.gravity ?? gravity) == .smart,
            smartCut: gravity == .smart,
            canvas: canvas(cutWidth: cutWidth, cutHeight: cutHeight))
    }

    /// Where the cut image sits on the canvas `extend` or `extend_aspect_ratio` ask for; nil when neither
    /// makes it larger. The canvas is the requested size times dpr and zoom, whatever enlarging allowed.
    private func canvas(cutWidth: Int, cutHeight: Int) -> PixelRect? {
        var canvasWidth = cutWidth, canvasHeight = cutHeight
        var placement: ImgproxyGravity?
        if let extend {
            if width > 0 { canvasWidth = max(cutWidth, Int((Double(width) * dpr * zoomX).rounded())) }
            if height > 0 { canvasHeight = max(cutHeight, Int((Double(height) * dpr * zoomY).rounded())) }
            if canvasWidth != cutWidth || canvasHeight != cutHeight { placement = extend }
        }
        if placement == nil, let extendAspectRatio, width > 0, height > 0 {
            let ratio = (Double(width) * zoomX) / (Double(height) * zoomY)
            if Double(cutWidth) / Double(cutHeight) > ratio {
                canvasHeight = max(cutHeight, Int((Double(cutWidth) / ratio).rounded()))
            } else {
                canvasWidth = max(cutWidth, Int((Double(cutHeight) * ratio).rounded()))
            }
            if canvasWidth != cutWidth || canvasHeight != cutHeight { placement = extendAspectRatio }
        }
        guard let placement else { return nil }
        let origin = placement.origin(
            outerWidth: canvasWidth, outerHeight: canvasHeight, innerWidth: cutWidth, innerHeight: cutHeight,
            offsetScale: dpr)
        // The canvas's size, and where on it the image's top-left corner goes.
        return PixelRect(x: origin.x, y: origin.y, width: canvasWidth, height: canvasHeight)
    }
}

/// An imgproxy resize planned on the full-size image, run on the reduced copy a decoder made of it. Its
/// identifier is the original's, since its output stands for that one.
struct ReducedImgproxyResize: ImageTransformer {
    let identifier: String
    let reducedSize: PixelSize
    let plan: ImgproxyResizePlan
    let filter: ResizeTransformer.Filter

    func transform(_ image: Image) throws -> Image {
        guard image.width == reducedSize.width, image.height == reducedSize.height else {
            throw TroveError.invalidConfiguration(
                "an imgproxy resize planned for a \(reducedSize) reduced image was given a "
                    + "\(image.width)x\(image.height) one")
        }
        return try plan.apply(to: image, filter: filter)
    }
}

extension ImgproxyResize {
    /// The resize to run before turning the image clockwise by `degrees` (0, 90, 180 or 270) so the turned
    /// result is what this resize makes of the turned image: sizes swap for quarter turns and gravities
    /// turn back. Resizing first keeps shrink-on-load and turns the small image instead of the large one.
    package func beforeRotation(_ degrees: Int) -> ImgproxyResize {
        guard degrees == 90 || degrees == 180 || degrees == 270 else { return self }
        let quarter = degrees != 180
        var result = self
        if quarter {
            (result.width, result.height) = (height, width)
            (result.minWidth, result.minHeight) = (minHeight, minWidth)
            (result.zoomX, result.zoomY) = (zoomY, zoomX)
        }
        result.gravity = gravity.beforeRotation(degrees)
        // imgproxy extends after it turns the image: the canvas's gravity is the turned image's.
        result.extend = extend?.beforeRotation(degrees)
        result.extendAspectRatio = extendAspectRatio?.beforeRotation(degrees)
        if let crop {
            result.crop = Crop(
                width: quarter ? crop.height : crop.width, height: quarter ? crop.width : crop.height,
                gravity: crop.gravity?.beforeRotation(degrees))
        }
        return result
    }
}
