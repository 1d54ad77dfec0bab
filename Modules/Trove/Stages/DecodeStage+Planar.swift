import Foundation
import TroveCore
import TroveTransformers

/// What a planar decode made, with the file's copyright notice: the resized planes, or for a source in colours
/// other than sRGB's, the resized planes as RGBA (chroma resampled to the output's full size) and the transform
/// that brings them to sRGB, run with the encode under the crash journal. Or why the source's header sent the
/// result the RGBA way (nothing decoded).
enum PlanarDecode {
    case planes(YCbCrPlanes, copyright: CopyrightNotice?)
    case unconverted(Image, toSRGB: any ColorTransform, copyright: CopyrightNotice?)
    case fallback(PlanarRoute.Fallback)

    /// The result's size; nil for a fallback.
    var outputSize: PixelSize? {
        switch self {
        case let .planes(planes, _): PixelSize(width: planes.width, height: planes.height)
        case let .unconverted(image, _, _): PixelSize(width: image.width, height: image.height)
        case .fallback: nil
        }
    }
}

/// One planar decode of one source along a route, fed its bytes whole or as they arrive: the decoder's stream
/// into the route's resize (`PlanarResizer`), and the fallback the header called for, if it did. Unchecked
/// `Sendable`: one caller feeds it, in order (a streamed decode's actor, or a decode thread the actor waits on).
final class PlanarDecodeRun: @unchecked Sendable {
    private let stream: any PlanarStream
    private let sink: PlanarResizer
    private let note: FallbackNote
    private let request: ImageRequest
    private let route: PlanarRoute

    fileprivate init(
        stream: any PlanarStream, sink: PlanarResizer, note: FallbackNote, request: ImageRequest, route: PlanarRoute
    ) {
        self.stream = stream
        self.sink = sink
        self.note = note
        self.request = request
        self.route = route
    }

    /// Decodes as far as the bytes so far go, `piece` the latest of them (see `PlanarStream.advance`).
    func advance(_ piece: Data, isComplete: Bool) throws -> PlanarStreamProgress {
        try stream.advance(piece, isComplete: isComplete)
    }

    /// What a decode that ended with `progress` made of the whole file `data`.
    func decoded(_ progress: PlanarStreamProgress, data: Data) throws -> PlanarDecode {
        guard progress == .finished else { return .fallback(note.fallback ?? .headerUnread) }
        let copyright = request.options.contains(.dropsCopyright) ? nil : route.decoder.copyrightNotice(data)
        guard let transform = note.transform else { return .planes(try sink.result(), copyright: copyright) }
        return .unconverted(try sink.rgbaResult(sourceFormat: .jpeg), toSRGB: transform, copyright: copyright)
    }
}

/// Where the header's facts leave the fallback they called for, and the conversion of the source's colours.
private final class FallbackNote {
    var fallback: PlanarRoute.Fallback?
    var transform: (any ColorTransform)?
}

extension DecodeStage {
    /// Decodes the source's planes along `route`, reduced as shrink-on-load would reduce its RGBA, straight
    /// into the route's resize: the result's planes, or the fallback the header called for. Bytes fetched just
    /// now that do not decode are forgotten as `run` forgets them.
    func runPlanar(
        _ input: (raw: RawResult, request: ImageRequest, key: CacheKey, route: PlanarRoute, threads: DecodeThreads?)
    ) async throws -> PlanarDecode {
        let (raw, request, key, route, threads) = input
        return try await forgettingUndecodable(raw, for: request, key: key) {
            guard let threads else { return try decodePlanes(raw.data, for: request, route: route) }
            let data = raw.data
            return try await threads.run { try self.decodePlanes(data, for: request, route: route) }
        }
    }

    /// A planar decode of the source behind `request` along `route`, not yet fed.
    func planarDecodeRun(for request: ImageRequest, route: PlanarRoute) -> PlanarDecodeRun {
        let plan = ShrinkOnLoad(
            transforms: request.transformsAsRun, storedSize: route.storedSize, orientation: route.orientation,
            reducingGap: configuration.shrinkOnLoadReducingGap)
        let options = DecodingOptions(limits: configuration.decodingLimits, minimumSize: plan?.minimumSize)
        let sink = PlanarResizer(resize: route.resize, storedSize: route.storedSize, orientation: route.orientation)
        let note = FallbackNote()
        // Without a converter the RGBA way leaves a profile on the image, and an encoder may embed it.
        let keepsProfile = request.options.contains(.keepsColorProfile) || colorStage == nil
        let color = colorStage?.forSource(request.url.absoluteString)
        let stream = route.decoder.makePlanarStream(
            options: options,
            accepts: { facts in
                note.fallback = route.fallback(for: facts, keepsProfile: keepsProfile)
                // Colours that are not sRGB's are converted as RGBA at the output's size. A profile the
                // converter cannot use is logged and the pixels taken as sRGB, as on the RGBA way.
                if note.fallback == nil, let description = facts.colorDescription, !description.isOnlyAnSRGBProfile {
                    note.transform = color?.transform(for: description)
                }
                sink.givesRGBA = note.transform != nil
                return note.fallback == nil
            }, into: sink)
        return PlanarDecodeRun(stream: stream, sink: sink, note: note, request: request, route: route)
    }

    /// Feeds `run` the body's next bytes under the crash guard's journal, as every decode of a source is fed.
    func advance(_ run: PlanarDecodeRun, _ piece: Data, isComplete: Bool, url: URL) throws -> PlanarStreamProgress {
        try sourceGuard.journaling(url) { try run.advance(piece, isComplete: isComplete) }
    }

    private func decodePlanes(_ data: Data, for request: ImageRequest, route: PlanarRoute) throws -> PlanarDecode {
        let run = planarDecodeRun(for: request, route: route)
        return try run.decoded(try advance(run, data, isComplete: true, url: request.url), data: data)
    }
}
