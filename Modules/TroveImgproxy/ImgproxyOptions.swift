import Foundation
import Trove

/// The processing options of one imgproxy URL, after the default preset, the URL's options (and presets)
/// and its extension were applied in order: plain values, and the transformers they stand for.
public struct ImgproxyOptions: Sendable, Equatable {
    /// An opaque colour.
    public struct Color: Sendable, Equatable {
        /// 0...255.
        public var red: UInt8
        public var green: UInt8
        public var blue: UInt8

        public init(red: UInt8, green: UInt8, blue: UInt8) {
            self.red = red
            self.green = green
            self.blue = blue
        }
    }

    /// Largest width, height or crop size a URL may ask for, so one URL cannot ask for gigapixels.
    public static let maximumDimension = 16_384
    /// Largest device pixel ratio accepted.
    public static let maximumDPR = 8.0

    /// `resizing_type`/`rt` (or the first argument of `resize`/`rs`); fit by default.
    public var resizingType: ImgproxyResize.ResizingType = .fit
    /// `width`/`w`; 0 follows the height and the aspect ratio.
    public var width = 0
    /// `height`/`h`; 0 follows the width and the aspect ratio.
    public var height = 0
    /// `enlarge`/`el`: whether a smaller image may be enlarged.
    public var enlarge = false
    /// `dpr`: multiplies the target size (and absolute gravity offsets).
    public var dpr = 1.0
    /// `gravity`/`g`: what fill keeps, and where a crop without its own gravity is placed.
    public var gravity: ImgproxyGravity = .center
    /// `crop`/`c`: the area kept before resizing.
    public var crop: ImgproxyResize.Crop?
    /// 1...100; nil leaves the encoder's default.
    public var quality: Int?
    /// From `format`/`f`/`ext` or the URL's extension; nil leaves the choice to negotiation and the source.
    public var format: ImageFormat?
    /// Gaussian blur sigma; 0 is none.
    public var blurSigma = 0.0
    /// Clockwise degrees: 0, 90, 180 or 270.
    public var rotation = 0
    /// Flatten alpha onto this colour; nil flattens only for formats without alpha, onto white.
    public var background: Color?
    /// Apply the EXIF orientation first (imgproxy's default).
    public var autoRotate = true
    /// From `expires`/`exp`: the URL answers 404 after this moment.
    public var expires: Date?

    public init() {}

    /// The geometry step, or nil when these options keep the image's size.
    public var resize: ImgproxyResize? { resize(maxResultDimension: .max) }

    /// The geometry step refusing results larger than `maxResultDimension` a side, or nil when these
    /// options keep the image's size.
    public func resize(maxResultDimension: Int) -> ImgproxyResize? {
        guard width > 0 || height > 0 || crop != nil || dpr != 1 else { return nil }
        return ImgproxyResize(
            resizingType: resizingType, width: width, height: height, enlarge: enlarge, dpr: dpr,
            gravity: gravity, crop: crop, maxResultDimension: maxResultDimension)
    }

    /// Formats Trove encodes without an alpha channel, so transparent pixels are flattened first.
    public static let formatsWithoutAlpha: Set<ImageFormat> = [.jpeg, .bmp]

    /// The transformers, in imgproxy's order, for an image encoded as `outputFormat` (nil: the source's
    /// format, which keeps whatever alpha it has): orientation, crop and resize, rotation, blur, flatten.
    /// A resize that would make an image larger than `maxResultDimension` a side throws instead.
    public func transforms(
        encodingAs outputFormat: ImageFormat?, maxResultDimension: Int = .max
    ) -> [any ImageTransformer] {
        var steps = [any ImageTransformer]()
        if autoRotate { steps.append(OrientTransformer()) }
        // Sizes and gravity refer to the image as delivered, after `rotate`; the resize runs first, turned
        // back to match, so the decoder can still shrink on load and the turn moves fewer pixels.
        if let resize = resize(maxResultDimension: maxResultDimension) {
            steps.append(resize.beforeRotation(rotation))
        }
        if let angle = RotateTransformer.Angle(rawValue: rotation) { steps.append(RotateTransformer(angle)) }
        if blurSigma > 0 { steps.append(BlurTransformer(sigma: blurSigma)) }
        if let background {
            steps.append(FlattenTransformer(background))
        } else if let outputFormat, Self.formatsWithoutAlpha.contains(outputFormat) {
            steps.append(FlattenTransformer.white)
        }
        return steps
    }
}
