import Foundation
import TroveCore

extension ImagePipeline {
    /// The result made from planes when `PlanarRoute` allows it: decoded (span `trove.decode`), resized and
    /// encoded (span `trove.transform`) without leaving YCbCr, or for a source in other colours than sRGB's,
    /// converted to sRGB and encoded as RGBA at the output's size (`PlanarDecode.unconverted`). Nil when the
    /// rule sends it the RGBA way, with nothing decoded. A decode that ran while the source arrived
    /// (`streamed`) is used when it was fed this very source.
    func planarResult(
        _ request: ImageRequest, key: CacheKey, _ raw: RawResult, probe: SourceProbe, threads: DecodeThreads?,
        streamed: StreamedPlanarDecode? = nil
    ) async throws -> (image: Image, data: Data, format: ImageFormat)? {
        guard let route = planarRoute(for: request, key: key, probe: probe) else { return nil }
        let format = transform.outputFormat(for: request, source: probe.header?.format ?? .jpeg)
        let options = request.encodingOptions ?? configuration.encodingOptions
        let tracing = parts.tracing
        let decoded = try await tracing.span("trove.decode") { span in
            let decoded: PlanarDecode
            if let streamed = await streamed?.result(for: raw) {
                decoded = streamed
                parts.metrics.record(.resultStreamedPlanar)
            } else {
                decoded = try await decode.runPlanar(
                    (raw: raw, request: request, key: key, route: route, threads: threads))
            }
            if let size = decoded.outputSize {
                span?.recordPlanarInput(probe, raw: raw, decodedWidth: size.width, decodedHeight: size.height)
            }
            return decoded
        }
        guard let size = decoded.outputSize else { return nil }
        try Task.checkCancellation()
        let sourceGuard = parts.sourceGuard, url = request.url
        let needsImage = !request.options.contains(.needsOnlyData)
        let encode: @Sendable () throws -> (image: Image, data: Data, format: ImageFormat) = {
            try sourceGuard.journaling(url) {
                let empty = Image(width: 0, height: 0, pixels: [], sourceFormat: .jpeg)
                switch decoded {
                case let .planes(planes, copyright):
                    // The RGBA image is the output's colour conversion: skipped when the caller reads only the
                    // bytes.
                    var image = needsImage ? planes.rgbaImage(sourceFormat: .jpeg) : empty
                    image.copyright = copyright
                    return (image, try route.encoder.encode(planes, metadata: image, options: options), format)
                case .unconverted(var image, let transform, let copyright):
                    // Converted at the output's size, and so encoded as RGBA.
                    transform.apply(to: &image)
                    image.copyright = copyright
                    return (needsImage ? image : empty, try route.encoder.encode(image, options: options), format)
                case .fallback:
                    throw TroveError.invalidConfiguration("planar result: the decode fell back")
                }
            }
        }
        let result = try await tracing.span("trove.transform") { span in
            let result =
                if let threads {
                    try await threads.run(encode)
                } else {
                    try encode()
                }
            span?.record(
                .output, width: size.width, height: size.height, format: result.format, bytes: result.data.count)
            return result
        }
        parts.metrics.record(.resultPlanar)
        return result
    }

    /// The route planes would take for this request and source, or nil when the rule sends it the RGBA way.
    func planarRoute(for request: ImageRequest, key: CacheKey, probe: SourceProbe) -> PlanarRoute? {
        guard key.processed != key.raw else { return nil }
        let format = transform.outputFormat(for: request, source: probe.header?.format ?? .jpeg)
        let candidate = PlanarRoute.candidate(
            transforms: request.transformsAsRun, decoder: probe.decoder, encoder: try? registry.encoder(for: format),
            options: request.encodingOptions ?? configuration.encodingOptions,
            hasDelegate: configuration.delegate != nil,
            header: probe.header)
        guard case let .success(route) = candidate else { return nil }
        return route
    }
}
