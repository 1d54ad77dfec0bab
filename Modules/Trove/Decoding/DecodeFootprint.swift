import TroveCore
import TroveTransformers

/// The memory a decode and its transforms will hold at their peak, worked out from the header before any
/// pixel is decoded, by the route `ImageDecoder.decode(_:limits:for:...)` will take:
/// - **streamed rows** (a still, a row-streaming decoder, a leading shrinking resize, planned on the displayed
///   size after a leading `orient`): the decoder's strip of stored-width rows and what else it holds while
///   streaming (a PNG's inflated image data, `PNGDecoder.scanlineBytes(of:)`), the resize's window of
///   output-width rows, the output, the output turned upright when the header says the image is turned, and
///   what later transforms make of it; a turned image whose resize cannot be planned on the stored rows falls
///   back to a whole reduced decode, so that is counted instead;
/// - **whole image**: every kept frame (at most `DecodingLimits.maxFrames`) at full size, the canvas the frames
///   are composed on, a byte a pixel of decoder scratch (GIF's palette indices), and each transform's output, all
///   frames of it (`orient` copies only an image the header says is turned).
/// Pixels count 4 bytes (RGBA8). The estimate errs high where the decoder's choice is unknown: a whole
/// decode is counted at full size even when a JPEG or WebP decoder might reduce it.
package struct DecodeFootprint: Sendable, Equatable {
    /// Which way the decode goes.
    package enum Route: Sendable, Equatable {
        /// Rows stream into a leading resize; the image is never held whole.
        case streamedRows
        /// The image (every frame) is decoded whole, then transformed.
        case wholeImage
        /// The header could not be read: the decode's own limit is all that is known.
        case unknownHeader
    }

    /// The route the decode will take.
    package let route: Route
    /// Bytes held at the peak.
    package let bytes: Int

    private static let bytesPerPixel = 4
    /// Rows a decoder delivers at once at most (a JPEG MCU row of 4:2:0), at up to 8 bytes a pixel.
    private static let decoderStripBytesPerColumn = 16 * 8
    /// A convolving resize's window: float RGBA rows, about 6 input rows per output row (Lanczos 3) for
    /// each step of reduction.
    private static let windowBytesPerColumn = 16

    /// The footprint of decoding an image whose header says `info` for `transforms`; `streams` when the
    /// decoder streams rows and the pipeline lets it (no delegate must see the decoded image), holding
    /// `streamingBufferBytes` besides its rows meanwhile (`SourceProbe.streamingBufferBytes`); `limits` bound
    /// what an unreadable header may cost.
    package init(
        info: ImageInfo?, transforms: [any ImageTransformer], streams: Bool, reducingGap: Double,
        limits: DecodingLimits, streamingBufferBytes: Int = 0
    ) {
        guard let info, info.width > 0, info.height > 0 else {
            route = .unknownHeader
            bytes = limits.maxDecodedBytes
            return
        }
        let stored = PixelSize(width: info.width, height: info.height)
        if streams, info.frameCount == 1,
            let shrink = LeadingShrink(transforms, stored: stored, orientation: info.orientation)
        {
            route = .streamedRows
            let turned = shrink.followsOrient && info.orientation != .up
            let turnsRows =
                turned && (try? shrink.resize.makeRowSink(storedSize: stored, orientation: info.orientation)) != nil
            bytes = Self.adding(
                Self.streamedBytes(
                    stored: stored, shown: shrink.shown, resize: shrink.resize,
                    turn: !turned ? .none : turnsRows ? .result : .wholeReduced(info.orientation),
                    rest: Array(transforms.dropFirst(shrink.index + 1)), reducingGap: reducingGap),
                max(0, streamingBufferBytes))
        } else {
            route = .wholeImage
            bytes = Self.wholeBytes(
                stored: stored, frames: limits.keptFrames(of: info.frameCount), transforms: transforms,
                orientation: info.orientation)
        }
    }

    /// What turning a streamed image upright holds.
    private enum Turn {
        /// Nothing: the image is upright, or kept as stored.
        case none
        /// A copy of the small result.
        case result
        /// The rows collected whole at the reduced size, to be turned before the resize.
        case wholeReduced(ExifOrientation)
    }

    private static func streamedBytes(
        stored: PixelSize, shown: PixelSize, resize: any RowStreamingResize, turn: Turn,
        rest: [any ImageTransformer], reducingGap: Double
    ) -> Int {
        let output = outputSize(of: resize, from: shown)
        let reduction = max(1, (shown.height + output.height - 1) / max(1, output.height))
        var total = saturating(stored.width, decoderStripBytesPerColumn)
        total = adding(total, saturating(max(output.width, output.height) * windowBytesPerColumn, 6 * reduction + 2))
        total = adding(total, area(output))
        switch turn {
        case .none:
            break
        case .result:
            total = adding(total, area(output))
        case let .wholeReduced(orientation):
            // At most twice the minimum per axis.
            let minimum =
                ShrinkOnLoad(
                    transforms: [OrientTransformer(), resize], storedSize: stored, orientation: orientation,
                    reducingGap: reducingGap)?.minimumSize ?? stored
            let reduced = PixelSize(
                width: min(stored.width, minimum.width * 2), height: min(stored.height, minimum.height * 2))
            total = adding(total, saturating(area(reduced), 2))
        }
        return adding(total, transformBytes(rest, from: output, frames: 1, orientation: .up))
    }

    private static func wholeBytes(
        stored: PixelSize, frames: Int, transforms: [any ImageTransformer], orientation: ExifOrientation
    ) -> Int {
        let canvas = area(stored)
        // Every frame, plus the canvas they are composed on when there are several.
        var total = saturating(canvas, frames > 1 ? frames + 1 : 1)
        total = adding(total, saturating(stored.width, stored.height))
        return adding(total, transformBytes(transforms, from: stored, frames: frames, orientation: orientation))
    }

    /// Each transform's output for every frame, all counted as held at once (an input is often still
    /// referenced while the next output is made). `orient` makes a copy only of a turned image.
    private static func transformBytes(
        _ transforms: [any ImageTransformer], from size: PixelSize, frames: Int, orientation: ExifOrientation
    ) -> Int {
        var size = size
        var orientation = orientation
        var total = 0
        for transform in transforms {
            if transform is OrientTransformer {
                guard orientation != .up else { continue }
                if orientation.swapsAxes { size = PixelSize(width: size.height, height: size.width) }
                orientation = .up
            } else if let downscaler = transform as? any DownscalingTransformer {
                size = outputSize(of: downscaler, from: size)
            }
            total = adding(total, saturating(area(size), frames))
        }
        return total
    }

    /// A shrinking transform's output size: the least source it could be reduced to with no gap at all.
    private static func outputSize(of downscaler: any DownscalingTransformer, from source: PixelSize) -> PixelSize {
        let output = downscaler.minimumSourceSize(for: source, reducingGap: 1) ?? source
        return PixelSize(
            width: max(1, min(output.width, source.width)), height: max(1, min(output.height, source.height)))
    }

    private static func area(_ size: PixelSize) -> Int {
        saturating(saturating(size.width, size.height), bytesPerPixel)
    }

    private static func saturating(_ a: Int, _ b: Int) -> Int {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? .max : product
    }

    private static func adding(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }
}
