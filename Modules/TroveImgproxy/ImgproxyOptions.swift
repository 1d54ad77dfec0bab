import Foundation
import Trove

/// The processing options of one imgproxy URL, after the default preset, the URL's options (and presets)
/// and its extension were applied in order: plain values, and the transformers they stand for.
package struct ImgproxyOptions: Sendable, Equatable {
    /// An opaque colour.
    package struct Color: Sendable, Equatable {
        /// Red, 0...255.
        package var red: UInt8
        /// Green, 0...255.
        package var green: UInt8
        /// Blue, 0...255.
        package var blue: UInt8

        /// A colour from its three channels.
        package init(red: UInt8, green: UInt8, blue: UInt8) {
            self.red = red
            self.green = green
            self.blue = blue
        }
    }

    /// Largest width, height or crop size a URL may ask for, so one URL cannot ask for gigapixels.
    package static let maximumDimension = 16_384
    /// Largest device pixel ratio accepted.
    package static let maximumDPR = 8.0

    /// `resizing_type`/`rt` (or the first argument of `resize`/`rs`); fit by default.
    package var resizingType: ImgproxyResize.ResizingType = .fit
    /// `width`/`w`; 0 follows the height and the aspect ratio.
    package var width = 0
    /// `height`/`h`; 0 follows the width and the aspect ratio.
    package var height = 0
    /// `enlarge`/`el`: whether a smaller image may be enlarged.
    package var enlarge = false
    /// `dpr`: multiplies the target size (and absolute gravity offsets).
    package var dpr = 1.0
    /// `gravity`/`g`: what fill keeps, and where a crop without its own gravity is placed.
    package var gravity: ImgproxyGravity = .center
    /// `crop`/`c`: the area kept before resizing.
    package var crop: ImgproxyResize.Crop?
    /// 1...100; nil leaves the encoder's default.
    package var quality: Int?
    /// From `format`/`f`/`ext` or the URL's extension; nil leaves the choice to negotiation and the source.
    package var format: ImageFormat?
    /// Gaussian blur sigma; 0 is none.
    package var blurSigma = 0.0
    /// Clockwise degrees: 0, 90, 180 or 270.
    package var rotation = 0
    /// Flatten alpha onto this colour; nil flattens only for formats without alpha, onto white.
    package var background: Color?
    /// Apply the EXIF orientation first (imgproxy's default).
    package var autoRotate = true
    /// From `expires`/`exp`: the URL answers 404 after this moment.
    package var expires: Date?
    /// `zoom`/`z`: multiplies the result size like `dpr`, without scaling offsets or padding.
    package var zoomX = 1.0
    /// As `zoomX`, for the height.
    package var zoomY = 1.0
    /// `min-width`/`mw` in CSS pixels; 0 is none.
    package var minWidth = 0
    /// `min-height`/`mh` in CSS pixels; 0 is none.
    package var minHeight = 0
    /// `extend`/`ex` (or the extend argument of `resize`/`size`): the gravity placing a smaller image on a
    /// canvas of the requested size; nil does not extend.
    package var extend: ImgproxyGravity?
    /// `extend_aspect_ratio`/`exar`: the gravity placing the image on a canvas of the requested aspect
    /// ratio; nil does not extend.
    package var extendAspectRatio: ImgproxyGravity?
    /// `padding`/`pd` in CSS pixels (scaled by dpr): top, right, bottom, left; nil is none.
    package var padding: ImgproxyPadding?
    /// `flip`/`fl`: mirror left to right.
    package var flipHorizontal = false
    /// `flip`/`fl`: mirror top to bottom.
    package var flipVertical = false
    /// `trim`/`t`: the background border to cut away first; nil keeps it.
    package var trim: TrimTransformer?
    /// `sharpen`/`sh` sigma; 0 is none.
    package var sharpenSigma = 0.0
    /// `pixelate`/`pix` block size; 0 or 1 is none.
    package var pixelateSize = 0
    /// `format_quality`/`fq`: quality (1...100) by output format, over the server's own table.
    package var formatQuality: [ImageFormat: Int] = [:]
    /// `max_bytes`/`mb`: the most bytes a JPEG, WebP, AVIF or HEIC result may have; 0 is no limit.
    package var maxBytes = 0
    /// `skip_processing`/`skp`: source formats answered with the source's bytes when the output format
    /// is the same.
    package var skipProcessing: Set<ImageFormat> = []
    /// `raw`: answer with the source's bytes, unprocessed and unchecked.
    package var raw = false
    /// `filename`/`fn`: the file name for `Content-Disposition` (without extension); nil takes the source's.
    package var filename: String?
    /// `return_attachment`/`att`: `Content-Disposition: attachment` instead of `inline`.
    package var returnAttachment = false
    /// `watermark`/`wm`: the server's watermark, placed so; nil is none.
    package var watermark: ImgproxyWatermark?
    /// `strip_metadata`/`sm`, `keep_copyright`/`kcr`, `strip_color_profile`/`scp`, `preserve_hdr`/`ph`,
    /// `enforce_thumbnail`/`eth` as given; nil leaves the server's behaviour.
    package var stripMetadata: Bool?
    /// `keep_copyright`/`kcr`.
    package var keepCopyright: Bool?
    /// `trove_placeholder:thumbhash` or `trove_placeholder:blurhash[:X:Y]` (a Trove extension, no imgproxy
    /// option): the result is the source's placeholder rendered as an image, then the other options' geometry
    /// and format; nil is the image itself.
    package var placeholder: PlaceholderKind?
    /// `strip_color_profile`/`scp`.
    package var stripColorProfile: Bool?
    /// `preserve_hdr`/`ph`.
    package var preserveHDR: Bool?
    /// `enforce_thumbnail`/`eth`.
    package var enforceThumbnail: Bool?
    /// Security options (`max_src_resolution` and its kind) a URL set, only with the server's
    /// `--allow-security-options`.
    package var limits = ImgproxySourceLimits()
    /// The first security option the URL or its presets named, checked against the server's permission.
    var securityOptionNamed: String?

    /// imgproxy's defaults: no resize, auto-rotation on, no filters.
    package init() {}

    /// The geometry step, or nil when these options keep the image's size.
    package var resize: ImgproxyResize? { resize(maxResultDimension: .max) }

    /// The geometry step refusing results larger than `maxResultDimension` a side, or nil when these
    /// options keep the image's size.
    package func resize(maxResultDimension: Int) -> ImgproxyResize? {
        guard
            width > 0 || height > 0 || crop != nil || dpr != 1 || zoomX != 1 || zoomY != 1 || minWidth > 0
                || minHeight > 0
        else { return nil }
        var resize = ImgproxyResize(
            resizingType: resizingType, width: width, height: height, enlarge: enlarge, dpr: dpr,
            gravity: gravity, crop: crop, maxResultDimension: maxResultDimension)
        resize.zoomX = zoomX
        resize.zoomY = zoomY
        resize.minWidth = minWidth
        resize.minHeight = minHeight
        resize.extend = extend
        resize.extendAspectRatio = extendAspectRatio
        return resize
    }

    /// Formats Trove encodes without an alpha channel, so transparent pixels are flattened first.
    package static let formatsWithoutAlpha: Set<ImageFormat> = [.jpeg, .bmp]

    /// The transformers, in imgproxy's order, for an image encoded as `outputFormat` (nil: the source's
    /// format, which keeps whatever alpha it has). They run after the pipeline has turned the image upright
    /// (unless `autoRotate` is off: the request then keeps the stored orientation): trim, crop and resize,
    /// rotation, flip, blur, sharpen, pixelate, padding, flatten, watermark (with `watermarkImage`, the
    /// server's), then the URL's `max_result_dimension` scaling down. A resize that would make an image larger
    /// than `maxResultDimension` a side throws instead.
    package func transforms(
        encodingAs outputFormat: ImageFormat?, maxResultDimension: Int = .max, watermarkImage: Image? = nil
    ) -> [any ImageTransformer] {
        var steps = [any ImageTransformer]()
        if limits.isSet { steps.append(SourceLimitCheck(limits: limits)) }
        if let trim { steps.append(trim) }
        // Sizes and gravity refer to the image as delivered, after `rotate`; the resize runs first, turned
        // back to match, so the decoder can still shrink on load and the turn moves fewer pixels.
        if let resize = resize(maxResultDimension: maxResultDimension) {
            steps.append(resize.beforeRotation(rotation))
        }
        if let angle = RotateTransformer.Angle(rawValue: rotation) { steps.append(RotateTransformer(angle)) }
        if flipHorizontal { steps.append(FlipTransformer(.h)) }
        if flipVertical { steps.append(FlipTransformer(.v)) }
        if blurSigma > 0 { steps.append(BlurTransformer(sigma: blurSigma)) }
        if sharpenSigma > 0 { steps.append(SharpenTransformer(sigma: sharpenSigma)) }
        if pixelateSize > 1 {
            steps.append(PixelateTransformer(size: max(1, Int((Double(pixelateSize) * dpr).rounded()))))
        }
        if let padding, let step = padding.transformer(dpr: dpr, background: background) { steps.append(step) }
        if let background {
            steps.append(FlattenTransformer(background))
        } else if let outputFormat, Self.formatsWithoutAlpha.contains(outputFormat) {
            steps.append(FlattenTransformer.white)
        }
        if let watermark, let watermarkImage { steps.append(watermark.transformer(mark: watermarkImage, dpr: dpr)) }
        if let side = limits.maxResultDimension {
            steps.append(ResizeTransformer(width: side, height: side, mode: .fit, filter: .lanczos3))
        }
        return steps
    }
}
