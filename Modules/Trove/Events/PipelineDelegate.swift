import Foundation
import TroveCore

/// Hooks an app may give a pipeline. Every method has a default that changes nothing.
public protocol PipelineDelegate: Sendable {
    /// Whether this URL may be fetched at all (an allow-list, a metered connection).
    func shouldFetch(_ url: URL) async -> Bool
    /// Changes the outgoing request: headers, auth tokens (refreshed asynchronously if need be).
    func prepare(_ request: FetchRequest) async throws -> FetchRequest
    /// Changes a freshly decoded image before transforms run and anything is cached in memory.
    func didDecode(_ image: Image, for request: ImageRequest) throws -> Image
}

extension PipelineDelegate {
    /// Default: every URL may be fetched.
    public func shouldFetch(_ url: URL) async -> Bool { true }
    /// Default: the request unchanged.
    public func prepare(_ request: FetchRequest) async throws -> FetchRequest { request }
    /// Default: the image unchanged.
    public func didDecode(_ image: Image, for request: ImageRequest) throws -> Image { image }
}
