import Foundation

/// Turns encoded bytes of one format into an `Image`. A decoder recognises its own format from the leading
/// bytes; the registry asks each decoder in turn, the latest registered first.
public protocol ImageDecoder: Sendable {
    /// The registry name, e.g. "png".
    var name: String { get }
    /// The format this decoder reads.
    var format: ImageFormat { get }
    /// Whether these leading bytes (up to `ImageFormat.sniffLength`, fewer if the data is shorter) are this
    /// decoder's format. Must be cheap and must not throw.
    func canDecode(_ header: Data) -> Bool
    /// Decodes the whole image at full size, refusing anything over `limits` before allocating for it.
    func decode(_ data: Data, limits: DecodingLimits) throws -> Image
    /// Decodes with options. A decoder that can decode at a reduced size (JPEG's scaled IDCT, WebP's scaled
    /// decode) returns the smallest size it can make that is still at least `options.minimumSize` in both
    /// dimensions; one that cannot ignores the request and decodes at full size. The default does that.
    func decode(_ data: Data, options: DecodingOptions) throws -> Image
    /// The image's size and frame count read from its header without decoding pixels, so limits can be
    /// checked before any work; nil when this decoder cannot tell cheaply. The default returns nil.
    func info(_ data: Data) throws -> ImageInfo?
    /// How many times the output a reduced decode leaves for the resample at the least, whatever reducing gap
    /// the pipeline asks (`DecodingOptions.minimumSize` is that many times the output). A decoder whose
    /// reduction is a proper filter (JPEG's scaled IDCT) may reduce to the output size itself; one that averages
    /// boxes of pixels (PNG's) leaves at least twice the output, as libvips' resize and Pillow's `thumbnail` do,
    /// so the resample's filter does the last halving. The default is 1.
    var leastReducingGap: Double { get }
    /// Whether a reduced decode divides the image into blocks of whole pixels (JPEG's scaled IDCT by n/8, PNG's
    /// box by 1/2^k), so that its last column and row may stand for part of a block and the image ends inside
    /// them; false for one that scales the whole image onto the reduced size (libwebp's). Resizes planned on
    /// the stored size are scaled to the copy by it. The default is false.
    var reducesByBlocks: Bool { get }
    /// The file's EXIF block as a TIFF structure (from its byte-order mark on), or nil when it has none or
    /// this decoder does not read it. The pipeline reads the copyright notice from it. The default is nil.
    func exif(_ data: Data) -> [UInt8]?
}

extension ImageDecoder {
    /// Decodes at full size within `options.limits`: the behaviour of a decoder that cannot reduce.
    public func decode(_ data: Data, options: DecodingOptions) throws -> Image {
        try decode(data, limits: options.limits)
    }

    /// 1: the pipeline's reducing gap as asked.
    public var leastReducingGap: Double { 1 }

    /// False: a reduced copy is taken to be the whole image scaled.
    public var reducesByBlocks: Bool { false }

    /// Returns nil (size unknown until decoded); a decoder that can read its header cheaply overrides it.
    public func info(_ data: Data) throws -> ImageInfo? { nil }

    /// Returns nil: no EXIF read. A decoder whose format carries EXIF overrides it.
    public func exif(_ data: Data) -> [UInt8]? { nil }

    /// The copyright notice in the file's metadata, nil when there is none: from EXIF, XMP and IPTC-IIM when
    /// this decoder reads them (`EmbeddedMetadataReading`), else from its EXIF block.
    package func copyrightNotice(_ data: Data) -> CopyrightNotice? {
        if let reader = self as? any EmbeddedMetadataReading { return reader.embeddedMetadata(data).copyrightNotice }
        return exif(data).flatMap { ExifBlock(tiff: $0)?.copyrightNotice }
    }
}

/// What a pipeline asks of a decoder beyond the bytes.
public struct DecodingOptions: Sendable {
    /// Bounds checked before allocating.
    public var limits: DecodingLimits
    /// When set, the decoder may return a reduced image no smaller than this in either dimension (of the
    /// image as stored, before EXIF orientation). Decoders that cannot reduce ignore it.
    public var minimumSize: PixelSize?
    /// For samples that are not RGB (a CMYK JPEG's) or have more than 8 bits (a 16-bit PNG's): the converter
    /// that brings them to sRGB as they are decoded, before any resize or rounding. Without one, a decoder uses
    /// its own approximation for CMYK and rounds wide samples as stored. 8-bit RGB pixels are left to the
    /// caller, which converts them once they are reduced.
    public var colorConverter: (any ColorConverter)?

    /// Options with the given limits (default `DecodingLimits.default`); no reduced decode unless `minimumSize`
    /// is set.
    public init(
        limits: DecodingLimits = .default, minimumSize: PixelSize? = nil,
        colorConverter: (any ColorConverter)? = nil
    ) {
        self.limits = limits
        self.minimumSize = minimumSize
        self.colorConverter = colorConverter
    }
}

/// A width and height in pixels.
public struct PixelSize: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// A size of `width` by `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// "WIDTHxHEIGHT", e.g. "640x480".
    public var description: String { "\(width)x\(height)" }
}

/// What a header says about an image, before any pixel is decoded.
public struct ImageInfo: Sendable, Equatable {
    /// The format whose header this is.
    public var format: ImageFormat
    /// Width in pixels, as stored (before EXIF orientation).
    public var width: Int
    /// Height in pixels, as stored (before EXIF orientation).
    public var height: Int
    /// 1 for a still image.
    public var frameCount: Int
    /// How the stored pixels are turned for display (EXIF, or the HEIF family's `irot`/`imir`); `.up` when the
    /// header says nothing.
    public var orientation: ExifOrientation

    /// What a header says; `frameCount` defaults to 1 (a still image), `orientation` to `.up`.
    public init(format: ImageFormat, width: Int, height: Int, frameCount: Int = 1, orientation: ExifOrientation = .up) {
        self.format = format
        self.width = width
        self.height = height
        self.frameCount = frameCount
        self.orientation = orientation
    }

    /// The size as displayed: width and height swapped when the orientation turns a quarter.
    public var displayedSize: PixelSize {
        orientation.swapsAxes ? PixelSize(width: height, height: width) : PixelSize(width: width, height: height)
    }
}
