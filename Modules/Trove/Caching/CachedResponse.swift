import TroveCore

/// What both pipelines hand back: a result that can say which tier it came from.
protocol CachedResponse: Sendable {
    var source: ResultSource { get set }
    /// The request fields that selected the response (`Vary`); empty when it suits every request.
    var selecting: [SelectingField] { get }
}

extension ImageResponse: CachedResponse {}
extension DataResponse: CachedResponse {}
