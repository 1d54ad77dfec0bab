import Foundation
import TroveCore

/// What the raw-data loader needs to know about one request, whether it came as an image or a data request.
struct RawRequest: Sendable {
    let url: URL
    /// The raw cache key (normalised URL or the custom key).
    let key: String
    let policy: CachePolicy
    let retryFailed: Bool
    let headers: [String: String]
    let priority: RequestPriority
    /// Identifies the caller among the waiters of a coalesced fetch.
    let waiter: UInt64
    let progress: @Sendable (FetchProgress) -> Void
}

/// Bytes from the disk cache or the network.
struct RawResult: Sendable {
    let data: Data
    let source: ResultSource
    let contentType: String?
}

/// The outcome of a conditional fetch for `refresh`.
enum Revalidation: Sendable {
    case notModified
    case modified(RawResult)
}
