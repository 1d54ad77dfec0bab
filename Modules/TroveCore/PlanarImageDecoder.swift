import Foundation

/// How one component of a planar image is sampled, as its file says (JPEG's sampling factors): luma at 2x2
/// and chroma at 1x1 is 4:2:0, luma at 2x1 is 4:2:2, all at 1x1 is 4:4:4.
package struct SamplingFactors: Sendable, Equatable {
    /// Samples across, relative to the other components.
    package var horizontal: Int
    /// Samples down, relative to the other components.
    package var vertical: Int

    /// Factors of `horizontal` across and `vertical` down.
    package init(_ horizontal: Int, _ vertical: Int) {
        self.horizontal = horizontal
        self.vertical = vertical
    }
}

/// What a planar decoder's header says, for the pipeline to choose between planes and RGBA before any pixel
/// is decoded.
package struct PlanarSourceFacts: Sendable, Equatable {
    /// How the file stores its colours.
    package enum ColorModel: Sendable, Equatable {
        /// Luma and two chroma components (JFIF's YCbCr).
        case yCbCr
        /// One gray component.
        case gray
        /// RGB, CMYK, YCCK or anything else.
        case other
    }

    /// The stored size.
    package var width: Int
    package var height: Int
    package var colorModel: ColorModel
    /// Each component's sampling factors, in file order (Y, Cb, Cr for YCbCr).
    package var sampling: [SamplingFactors]
    /// The EXIF orientation; planes arrive as stored.
    package var orientation: ExifOrientation
    /// Whether the file describes its colours (an ICC profile, Adobe CMYK...): nil means sRGB or unknown.
    package var colorDescription: ColorDescription?

    /// Facts as a header gave them.
    package init(
        width: Int, height: Int, colorModel: ColorModel, sampling: [SamplingFactors], orientation: ExifOrientation,
        colorDescription: ColorDescription?
    ) {
        self.width = width
        self.height = height
        self.colorModel = colorModel
        self.sampling = sampling
        self.orientation = orientation
        self.colorDescription = colorDescription
    }
}

/// One plane of a planar decode: its size in samples and how many image pixels each sample spans.
package struct PlaneLayout: Sendable, Equatable {
    package var width: Int
    package var height: Int
    /// Image pixels one sample spans across: 1 for luma, 2 for 4:2:0 or 4:2:2 chroma (centre-sited, as
    /// JFIF places it: sample i covers pixels [i * spanX, (i + 1) * spanX)).
    package var spanX: Double
    /// As `spanX`, down.
    package var spanY: Double

    /// A `width x height` plane whose samples span `spanX x spanY` image pixels.
    package init(width: Int, height: Int, spanX: Double, spanY: Double) {
        self.width = width
        self.height = height
        self.spanX = spanX
        self.spanY = spanY
    }
}

/// What a planar decode tells its sink before the first row.
package struct PlanarStreamHeader: Sendable, Equatable {
    /// The image's size as delivered (reduced when the decoder was asked to and can): the luma plane's.
    package var width: Int
    package var height: Int
    /// Y, Cb and Cr.
    package var planes: [PlaneLayout]
    package var sourceFormat: ImageFormat

    /// A header for a `width x height` image in `planes`.
    package init(width: Int, height: Int, planes: [PlaneLayout], sourceFormat: ImageFormat) {
        self.width = width
        self.height = height
        self.planes = planes
        self.sourceFormat = sourceFormat
    }
}

/// A consumer of decoded planes: told their layout once, then given each plane's rows top to bottom (the
/// planes' rows interleaved in bands, as the decoder makes them). Not `Sendable`: one decode drives it.
package protocol PlaneRowSink: AnyObject {
    /// Called once, before any row, after the decoder has checked its limits.
    func begin(_ header: PlanarStreamHeader) throws
    /// The next row of plane `plane` (0 Y, 1 Cb, 2 Cr): `planes[plane].width` samples, valid during the call.
    func consume(plane: Int, row: UnsafePointer<UInt8>) throws
}

/// A decoder that can hand an image over as its stored YCbCr planes (JPEG's raw data: no chroma upsampling,
/// no colour conversion), reduced as `decode(_:options:)` reduces.
package protocol PlanarImageDecoder: ImageDecoder {
    /// A planar decode of one body into `sink`, fed as the body arrives (`PlanarStream.advance`). Once the
    /// header has arrived it asks `accepts` whether to go on with its facts; if so it decodes into `sink`,
    /// checking `options.limits` first and reducing for `options.minimumSize`. A file whose facts `accepts`
    /// took must be YCbCr at sampling the decoder can deliver, or the decode throws.
    func makePlanarStream(
        options: DecodingOptions, accepts: @escaping (PlanarSourceFacts) -> Bool, into sink: any PlaneRowSink
    ) -> any PlanarStream
}

extension PlanarImageDecoder {
    /// Decodes a whole file as `makePlanarStream` decodes a body: false, having decoded nothing, when
    /// `accepts` declines the header's facts; true once every row has reached `sink`. Throws as the stream
    /// throws.
    package func decodePlanes(
        _ data: Data, options: DecodingOptions, accepts: (PlanarSourceFacts) -> Bool, into sink: any PlaneRowSink
    ) throws -> Bool {
        try withoutActuallyEscaping(accepts) { accepts in
            let stream = makePlanarStream(options: options, accepts: accepts, into: sink)
            switch try stream.advance(data, isComplete: true) {
            case .finished: return true
            case .declined: return false
            case .needsMore:
                throw TroveError.decodingFailed(
                    format: format, reason: "the planar decode stopped before the file's end")
            }
        }
    }
}
