import TroveCore

/// What both pipelines hand back: a result that can say which tier it came from.
protocol CachedResponse: Sendable {
    var source: ResultSource { get set }
}

extension ImageResponse: CachedResponse {}
extension DataResponse: CachedResponse {}
