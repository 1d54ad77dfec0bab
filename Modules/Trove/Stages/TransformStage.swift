import Foundation
import TroveCore

/// Transform: the delegate's `didDecode`, the transforms the decode left to run, then the result encoded in
/// its output format (a request without transforms keeps its original bytes), with the source in the crash
/// journal.
struct TransformStage: PipelineStage {
    let registry: PluginRegistry
    /// The delegate and the default encoding options.
    let configuration: PipelineConfiguration
    let sourceGuard: SourceGuard

    func run(
        _ input: (
            decoded: Image, remaining: [any ImageTransformer], raw: RawResult, request: ImageRequest, key: CacheKey
        )
    ) throws -> (image: Image, data: Data, format: ImageFormat) {
        try sourceGuard.journaling(input.request.url) {
            try transformJournaled(
                input.decoded, remaining: input.remaining, raw: input.raw, for: input.request, key: input.key)
        }
    }

    private func transformJournaled(
        _ decoded: Image, remaining: [any ImageTransformer], raw: RawResult, for request: ImageRequest,
        key: CacheKey
    ) throws -> (image: Image, data: Data, format: ImageFormat) {
        var transforms = remaining
        var image = try configuration.delegate?.didDecode(decoded, for: request) ?? decoded
        if image.width != decoded.width || image.height != decoded.height {
            // The delegate changed the geometry the reduced plan was made for: run the transforms as asked.
            transforms = request.transformsAsRun
        }
        image = try image.transformed(
            by: transforms, keepsColorProfile: request.options.contains(.keepsColorProfile))
        if key.processed == key.raw { return (image, raw.data, decoded.sourceFormat) }
        // Nothing to change, and its own format asked for, which nothing here encodes (a GIF): its bytes are the
        // answer, not another format the request did not ask for.
        if request.transforms.isEmpty, request.outputFormat == nil, request.options.contains(.encodesInSourceFormat),
            !registry.encodableFormats.contains(decoded.sourceFormat)
        {
            return (image, raw.data, decoded.sourceFormat)
        }
        let format = outputFormat(for: request, source: decoded.sourceFormat, animated: !image.frames.isEmpty)
        let data = try registry.encoder(for: format)
            .encode(image, options: request.encodingOptions ?? configuration.encodingOptions)
        return (image, data, format)
    }

    /// The format a processed result is encoded in: the request's, else the source's when asked and an
    /// encoder for it is registered, else WebP for an animation when an encoder writes it (a GIF source without
    /// a GIF encoder keeps its frames, as imgproxy picks a format that animates), else PNG.
    func outputFormat(for request: ImageRequest, source: ImageFormat, animated: Bool = false) -> ImageFormat {
        if let format = request.outputFormat { return format }
        if request.options.contains(.encodesInSourceFormat), registry.encodableFormats.contains(source) {
            return source
        }
        if animated, registry.encodableFormats.contains(.webp) { return .webp }
        return .png
    }
}
