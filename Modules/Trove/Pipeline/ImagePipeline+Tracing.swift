import Foundation
import Tracing
import TroveCore

extension ImagePipeline {
    /// `load` with a tracer: a memory hit is one `trove.memory` span, a child of the caller's current span;
    /// past memory the request gets a `trove.image` root (begun before the memory lookup, which is its first
    /// child) with the source URL (redacted), the tier that answered and the result's size, format and bytes.
    /// The stages' spans are its children, or, for a request that joined work in flight, the starting
    /// request's, linked from this root.
    func tracedLoad(
        _ request: ImageRequest, key: CacheKey, waiter: UInt64,
        emit: @escaping @Sendable (ImageEvent) -> Void
    ) async throws -> ImageResponse {
        let tracing = parts.tracing
        let start = DefaultTracerClock.now
        if var hit = memoryHit(request, key: key) {
            tracing.memoryLookup(since: start, hit: true, bytes: hit.data.count)
            if request.placeholder != nil { hit = try await attachingPlaceholder(hit, for: request) }
            emit(.final(hit))
            return hit
        }
        return try await tracing.span("trove.image", at: start) { span in
            tracing.memoryLookup(since: start, hit: false)
            span?.record(url: request.url)
            let response = try await run(request, key: key, waiter: waiter, span: span, emit: emit)
            span?.recordAnswer(response)
            return response
        }
    }
}

extension Span {
    /// What answered a request: the tier, and the result's size, format and bytes.
    func recordAnswer(_ response: ImageResponse) {
        updateAttributes { attributes in
            attributes["trove.source"] = response.source.rawValue
            attributes.record(
                .output, width: response.image.width, height: response.image.height, format: response.format)
            attributes["trove.bytes"] = response.data.count
        }
    }

    /// As `recordInput(_:raw:decoded:)`, for a planar decode whose result is `decodedWidth x decodedHeight`
    /// (already resized: no RGBA image was decoded).
    func recordPlanarInput(_ probe: SourceProbe, raw: RawResult, decodedWidth: Int, decodedHeight: Int) {
        updateAttributes { attributes in
            attributes.record(
                .input, width: probe.header?.width ?? decodedWidth, height: probe.header?.height ?? decodedHeight,
                format: probe.header?.format ?? .jpeg)
            attributes["trove.input.bytes"] = raw.data.count
            attributes["trove.decoded.width"] = decodedWidth
            attributes["trove.decoded.height"] = decodedHeight
        }
    }

    /// What a decode read: the source's size (its header's, before any shrink-on-load), format and bytes, and
    /// the size it was decoded at.
    func recordInput(_ probe: SourceProbe, raw: RawResult, decoded: Image) {
        updateAttributes { attributes in
            attributes.record(
                .input, width: probe.header?.width ?? decoded.width, height: probe.header?.height ?? decoded.height,
                format: probe.header?.format ?? decoded.sourceFormat)
            attributes["trove.input.bytes"] = raw.data.count
            attributes["trove.decoded.width"] = decoded.width
            attributes["trove.decoded.height"] = decoded.height
        }
    }
}
