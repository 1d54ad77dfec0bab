import Foundation
import TroveCore

extension ImagePipeline {
    /// How this request's previews are made: by the progressive decoder for the body's format, within the
    /// pipeline's limits, with the request's transforms run on each before it is emitted.
    func previews(
        for request: ImageRequest, key: CacheKey,
        emit: @escaping @Sendable (ImageEvent) -> Void
    ) -> PreviewRequest {
        let registry = registry
        let limits = configuration.decodingLimits
        return PreviewRequest(
            interval: configuration.previewInterval,
            makeDecoder: { data in
                (registry.decoder(for: data) as? any ProgressiveImageDecoder)?.makeIncrementalDecoder(limits: limits)
            },
            deliver: { image in
                var image = image
                do {
                    for transformer in request.transformsAsRun { image = try transformer.transform(image) }
                } catch {
                    return  // a transform that fails on a preview will say so on the final image
                }
                emit(
                    .preview(
                        ImageResponse(
                            image: image, data: Data(), format: image.sourceFormat, source: .network,
                            cacheKey: key)))
            })
    }
}
