import Foundation

/// Gets the bytes behind a URL for the schemes it declares (http, https, file, data, ...).
public protocol Fetcher: Sendable {
    /// The registry name, e.g. "http".
    var name: String { get }
    /// Lowercase URL schemes this fetcher serves.
    var schemes: Set<String> { get }
    /// Fetches the whole body, calling `progress` as bytes arrive. A conditional request (validators set)
    /// may come back `.notModified`.
    func fetch(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) async throws
        -> FetchOutcome
}

extension Fetcher {
    public func fetch(_ request: FetchRequest) async throws -> FetchOutcome {
        try await fetch(request, progress: { _ in })
    }
}

public struct FetchRequest: Sendable {
    public var url: URL
    public var headers: [String: String]
    /// Set for a revalidation: sent as If-None-Match / If-Modified-Since.
    public var validators: Validators?
    /// The idle timeout: the fetch fails when the origin sends nothing for this long (a slow but steady
    /// download is fine).
    public var timeout: Duration
    /// The body may not exceed this many bytes (checked as bytes arrive).
    public var maxBytes: Int
    /// When the whole request (this attempt and any retries) must be done by; nil for no bound beyond the
    /// idle timeout.
    public var deadline: RequestDeadline?

    public init(url: URL, headers: [String: String] = [:], validators: Validators? = nil,
                timeout: Duration = .seconds(15), maxBytes: Int = 50 << 20, deadline: RequestDeadline? = nil) {
        self.url = url
        self.headers = headers
        self.validators = validators
        self.timeout = timeout
        self.maxBytes = maxBytes
        self.deadline = deadline
    }
}

public struct FetchProgress: Sendable, Equatable {
    public var received: Int64
    /// From Content-Length, when the origin sent one.
    public var expected: Int64?

    public init(received: Int64, expected: Int64?) {
        self.received = received
        self.expected = expected
    }
}

/// HTTP cache validators stored with an entry so it can be revalidated later.
public struct Validators: Sendable, Equatable, Codable {
    public var etag: String?
    public var lastModified: String?

    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    public var isEmpty: Bool { etag == nil && lastModified == nil }
}

public struct ResponseMetadata: Sendable, Equatable {
    public var url: URL
    public var statusCode: Int
    public var contentType: String?
    public var validators: Validators
    public var cacheControl: String?
    public var expectedLength: Int64?
    /// What the response's caching headers say (Cache-Control, Expires, Date, Age); `.none` for sources
    /// without them (files, data: URLs).
    public var directives: CacheDirectives

    public init(url: URL, statusCode: Int = 200, contentType: String? = nil, validators: Validators = .init(),
                cacheControl: String? = nil, expectedLength: Int64? = nil, directives: CacheDirectives = .none) {
        self.url = url
        self.statusCode = statusCode
        self.contentType = contentType
        self.validators = validators
        self.cacheControl = cacheControl
        self.expectedLength = expectedLength
        self.directives = directives
    }
}

public enum FetchOutcome: Sendable {
    case data(Data, ResponseMetadata)
    /// 304: the cached copy is still current.
    case notModified(ResponseMetadata)
}
