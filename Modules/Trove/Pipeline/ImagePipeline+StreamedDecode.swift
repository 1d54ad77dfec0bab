import Foundation
import TroveCore

extension ImagePipeline {
    /// Most of a body read for a header before a streamed decode gives up and leaves it to the ordinary one.
    static let streamedHeaderBytes = 1 << 20

    /// A decode to run while the request's source arrives (`PipelineConfiguration.streamedDecodeGate`), when
    /// its result may be made from planes (its transforms are those `PlanarRoute.planarResize(in:)` takes; no
    /// delegate sees the decode) and a fetch may bring the source to `process`; nil otherwise. What the source
    /// is and whether its route is planar are found from its first bytes, as `process` finds them from the
    /// whole (`StreamedPlanarDecode`).
    func streamedPlanarDecode(for request: ImageRequest, key: CacheKey) -> StreamedPlanarDecode? {
        let transforms = request.transformsAsRun
        // A cache-only load never fetches; a refresh makes its result on a path of its own.
        guard let gate = configuration.streamedDecodeGate, key.processed != key.raw, configuration.delegate == nil,
            request.cachePolicy != .cacheOnly, request.cachePolicy != .refresh,
            PlanarRoute.planarResize(in: transforms) != nil
        else { return nil }
        let decode = decode, url = request.url
        return StreamedPlanarDecode(
            gate: gate,
            start: { [self] body in
                // The format by its signature first, so a source whose decoder gives no planes is not sniffed
                // by the decoders twice (the fetch's check does it once) or its header read with every piece.
                guard let format = ImageFormat.wellKnown(sniffing: body) else {
                    return body.count < ImageFormat.sniffLength ? .wait : .giveUp
                }
                guard (try? registry.decoder(for: format)) is any PlanarImageDecoder,
                    let decoder = registry.decoder(for: body), decoder is any PlanarImageDecoder
                else { return .giveUp }
                let probe = SourceProbe(body, decoder: decoder)
                guard probe.readsHeader, probe.header != nil else {
                    return body.count < Self.streamedHeaderBytes ? .wait : .giveUp
                }
                guard let route = planarRoute(for: request, key: key, probe: probe) else { return .giveUp }
                do {
                    // As `process`: a source a crash was traced to is never decoded, and the decode waits
                    // for room in the budget (which `process` then shares, under the same key).
                    try await parts.sourceGuard.refusePoisoned(url)
                    let reservation = try await reserveDecodeMemory(
                        for: probe, key: key.processed, transforms: transforms)
                    // A large source's steps run where `process` would run its decode.
                    return .begin(decode.planarDecodeRun(for: request, route: route), reservation, probe.threads)
                } catch {
                    return .giveUp
                }
            },
            advance: { run, piece, isComplete in
                try decode.advance(run, piece, isComplete: isComplete, url: url)
            })
    }
}
