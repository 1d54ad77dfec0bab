import TroveCore
import TroveTransformers

/// The one rule for which results are made from YCbCr planes (decoded raw and resampled plane by plane: no colour
/// conversion or chroma resampling at the source's size) and which from RGBA, as every other result is. Planes
/// only where they give what RGBA would: a still JPEG to a lossy JPEG, WebP or AVIF (an encoder that takes 4:2:0
/// planes, `PlanarImageEncoder`), the transforms a leading `orient`, one resize that is only a shrinking resample
/// (`PlanarResize`) and after it nothing but transforms that leave an opaque image alone
/// (`OpaqueInvariantTransformer`), no delegate to see the decoded image, and a source that is YCbCr at 4:4:4,
/// 4:2:2, 4:4:0 or 4:2:0 whose profile, if it has one, the result does not keep. A turned source (an EXIF
/// orientation) is turned upright at the output's size, plane by plane, when the transforms lead with `orient`.
/// A source in colours other than sRGB's (an Adobe RGB or Display P3 profile) is resized from planes too, and
/// converted to sRGB as RGBA at the output's size, then encoded from that. Anything else that needs RGB (a
/// watermark, rounded corners, any transform after the resize) goes the RGBA way. Decided in two steps:
/// `candidate` from the request before anything is read, `fallback(for:keepsProfile:)` from the header once the
/// decoder has read it.
struct PlanarRoute {
    /// Why a result goes the RGBA way.
    enum Fallback: String, Error, Equatable, Sendable, CaseIterable {
        case noPlanarEncoder = "the output's encoder cannot take planes"
        case losslessOutput = "the output is lossless, which 4:2:0 planes are not"
        case noPlanarDecoder = "the source's decoder cannot give planes"
        case delegateSeesDecode = "a delegate sees the decoded image"
        case transformsBeyondResize = "the transforms are more than one resize (and what leaves opaque images alone)"
        case resizeNotPlanar = "the resize is more than a shrinking resample"
        case animated = "the source has more than one frame"
        case headerUnread = "the source's header could not be read"
        case turned = "the source is turned and the result keeps it as stored, or the header read first said otherwise"
        case colorProfile = "the source's profile is kept (asked for, or no colour converter)"
        case notYCbCr = "the source is not YCbCr"
        case sampling = "the source's chroma sampling is not 4:4:4, 4:2:2, 4:4:0 or 4:2:0"
    }

    let decoder: any PlanarImageDecoder
    let encoder: any PlanarImageEncoder
    let resize: any PlanarResize
    /// The full stored size; the resize is planned on it turned as `orientation` shows it.
    let storedSize: PixelSize
    /// How the header read first says the source is displayed, when the transforms turn it upright (`.up` when
    /// they keep it as stored): the decoder's header must say the same.
    let orientation: ExifOrientation

    /// The request-level half: planes are possible for these transforms (as run: `orient` first unless the
    /// stored orientation is kept), this decoder, the output's encoder with these options, and the source's
    /// header (as probed; nil when unread). Either the route to try, or why not.
    static func candidate(
        transforms: [any ImageTransformer], decoder: any ImageDecoder, encoder: (any ImageEncoder)?,
        options: EncodingOptions, hasDelegate: Bool, header: ImageInfo?
    ) -> Result<PlanarRoute, Fallback> {
        guard let encoder = encoder as? any PlanarImageEncoder else { return .failure(.noPlanarEncoder) }
        guard encoder.takesPlanes(options) else { return .failure(.losslessOutput) }
        guard let decoder = decoder as? any PlanarImageDecoder else { return .failure(.noPlanarDecoder) }
        guard !hasDelegate else { return .failure(.delegateSeesDecode) }
        guard let resize = planarResize(in: transforms) else { return .failure(.transformsBeyondResize) }
        guard let header else { return .failure(.headerUnread) }
        guard header.frameCount == 1 else { return .failure(.animated) }
        // After a leading `orient` the resize sees the source as displayed.
        let orientation = transforms.first is OrientTransformer ? header.orientation : .up
        let stored = PixelSize(width: header.width, height: header.height)
        let shown = Transposition(undoing: orientation).outputSize(of: stored)
        guard resize.streamsRows(from: shown), resize.planarGeometry(storedSize: shown, deliveredSize: shown) != nil
        else { return .failure(.resizeNotPlanar) }
        return .success(
            PlanarRoute(
                decoder: decoder, encoder: encoder, resize: resize, storedSize: stored, orientation: orientation))
    }

    /// The resize of transforms (as run) that planes can make: a leading `orient`, then a `PlanarResize`, then
    /// only what leaves an opaque image alone (imgproxy's flatten onto its background). Nil for any others.
    static func planarResize(in transforms: [any ImageTransformer]) -> (any PlanarResize)? {
        let steps = transforms.first is OrientTransformer ? transforms.dropFirst() : transforms[...]
        guard let resize = steps.first as? any PlanarResize,
            steps.dropFirst().allSatisfy({ $0 is any OpaqueInvariantTransformer })
        else { return nil }
        return resize
    }

    /// The source-level half, from the header the decoder read: nil when planes give what RGBA would.
    /// `keepsProfile`: the result would carry the source's profile (asked for, or no colour converter).
    func fallback(for facts: PlanarSourceFacts, keepsProfile: Bool) -> Fallback? {
        Self.fallback(for: facts, storedSize: storedSize, orientation: orientation, keepsProfile: keepsProfile)
    }

    /// As `fallback(for:keepsProfile:)`, for a route planned on `storedSize` shown in `orientation`.
    static func fallback(
        for facts: PlanarSourceFacts, storedSize: PixelSize, orientation: ExifOrientation = .up,
        keepsProfile: Bool = false
    ) -> Fallback? {
        guard facts.width == storedSize.width, facts.height == storedSize.height else { return .headerUnread }
        guard facts.orientation == orientation else { return .turned }
        if facts.colorDescription != nil, keepsProfile { return .colorProfile }
        guard facts.colorModel == .yCbCr, facts.sampling.count == 3 else { return .notYCbCr }
        let luma = facts.sampling[0]
        guard (1...2).contains(luma.horizontal), (1...2).contains(luma.vertical),
            facts.sampling[1] == SamplingFactors(1, 1), facts.sampling[2] == SamplingFactors(1, 1)
        else { return .sampling }
        return nil
    }
}
