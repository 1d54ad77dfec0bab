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

/// A fetcher that hands its body to a `FetchBodySink` as it arrives instead of collecting it (the HTTP
/// fetchers), so a body on its way to disk is never held whole in memory.
package protocol StreamingFetcher: Fetcher {
    /// Fetches the body into `sink` as it arrives, calling `progress` as bytes arrive; the outcome carries
    /// the body's length, not its bytes. A conditional request may come back `.notModified`, with nothing
    /// given to the sink.
    func fetchStreaming(
        _ request: FetchRequest, into sink: any FetchBodySink,
        progress: @escaping @Sendable (FetchProgress) -> Void
    ) async throws -> StreamedFetchOutcome
}

extension Fetcher {
    /// Fetches the body into `sink`: as it arrives from a `StreamingFetcher`; from any other fetcher, the
    /// whole body from `fetch(_:progress:)` in one piece.
    package func fetch(
        _ request: FetchRequest, into sink: any FetchBodySink,
        progress: @escaping @Sendable (FetchProgress) -> Void
    ) async throws -> StreamedFetchOutcome {
        if let streaming = self as? any StreamingFetcher {
            return try await streaming.fetchStreaming(request, into: sink, progress: progress)
        }
        switch try await fetch(request, progress: progress) {
        case let .data(data, metadata):
            try sink.begin(metadata)
            if !data.isEmpty { try data.withUnsafeBytes { try sink.write($0) } }
            return .streamed(metadata, length: data.count)
        case let .notModified(metadata):
            return .notModified(metadata)
        }
    }

    /// Fetches the body into `sink` without progress reports.
    package func fetch(_ request: FetchRequest, into sink: any FetchBodySink) async throws -> StreamedFetchOutcome {
        try await fetch(request, into: sink, progress: { _ in })
    }

    /// Fetches the whole body without progress reports.
    public func fetch(_ request: FetchRequest) async throws -> FetchOutcome {
        try await fetch(request, progress: { _ in })
    }
}

/// One fetch: the URL, extra headers, revalidation validators, and the bounds it runs under.
public struct FetchRequest: Sendable {
    /// The URL to fetch; its scheme picks the fetcher.
    public var url: URL
    /// Extra request headers by name, sent by the HTTP fetcher (the file and data: fetchers ignore them).
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
    /// The HTTP method, upper case (default GET). Fetchers of other schemes read only with GET.
    public var method: String = "GET"
    /// The request body sent with `method`; nil sends none.
    public var body: Data?
    /// Called with each piece of a successful response's body as it arrives, in order (a retried or
    /// redirected fetch starts over with a new observer); nil, the default, for none. For work on a body
    /// before it is complete, such as progressive previews. A fetcher that gets its body all at once may
    /// skip it: its callers then see the whole body only.
    public var bodyObserver: (@Sendable (Data) -> Void)?
    /// Where the HTTP fetcher reads the cookies it sends and keeps those it receives, on every hop; nil, the
    /// default, sends none and keeps none. Other fetchers ignore it.
    public var cookieStore: (any CookieStore)?
    /// How the HTTP fetchers check https certificates, hop by hop: the system's trust store by default.
    /// Other fetchers ignore it.
    public var tls = TLSOptions()
    /// Called with what came with an answer that is not a success (a 404's headers, say) before the fetch
    /// fails with its status, so the caller can read the answer's own freshness; nil for none.
    package var failedResponseObserver: (@Sendable (ResponseMetadata) -> Void)?

    /// A request for `url`. Defaults: no extra headers, no validators, a 15 s idle timeout, a 50 MiB body limit,
    /// no deadline.
    public init(
        url: URL, headers: [String: String] = [:], validators: Validators? = nil,
        timeout: Duration = .seconds(15), maxBytes: Int = 50 << 20, deadline: RequestDeadline? = nil
    ) {
        self.url = url
        self.headers = headers
        self.validators = validators
        self.timeout = timeout
        self.maxBytes = maxBytes
        self.deadline = deadline
    }
}

/// How much of a body has arrived, reported while a fetch runs.
public struct FetchProgress: Sendable, Equatable {
    /// Body bytes received so far.
    public var received: Int64
    /// From Content-Length, when the origin sent one.
    public var expected: Int64?

    /// A report of `received` bytes out of `expected` (nil when the length is unknown).
    public init(received: Int64, expected: Int64?) {
        self.received = received
        self.expected = expected
    }
}

/// HTTP cache validators stored with an entry so it can be revalidated later.
public struct Validators: Sendable, Equatable, Codable {
    /// The `ETag` response header, sent back as If-None-Match.
    public var etag: String?
    /// The `Last-Modified` response header as the server wrote it (an HTTP date), sent back as If-Modified-Since.
    public var lastModified: String?

    /// Validators from the given header values; nil for a header the response did not have.
    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// True when there is nothing to revalidate with (the response had neither header).
    package var isEmpty: Bool { etag == nil && lastModified == nil }
}

/// What a fetcher learned about a response besides its body.
public struct ResponseMetadata: Sendable, Equatable {
    /// The URL that was requested; the HTTP fetcher follows redirects but keeps the original URL here.
    public var url: URL
    /// The HTTP status code; 200 for sources that are not HTTP (files, data: URLs).
    public var statusCode: Int
    /// The media type the source declared (`Content-Type`, or a data: URL's type), if any. Informational: the
    /// registered decoders decide the format from the bytes.
    public var contentType: String?
    /// `ETag` and `Last-Modified`, kept with the cached entry for a later revalidation.
    public var validators: Validators
    /// The first `Cache-Control` header as sent, if any; `directives` holds what all of them mean.
    public var cacheControl: String?
    /// The body length in bytes the source announced (`Content-Length`), if any.
    public var expectedLength: Int64?
    /// What the response's caching headers say (Cache-Control, Expires, Date, Age); `.none` for sources
    /// without them (files, data: URLs).
    package var directives: CacheDirectives
    /// Every header field of the response, in order, as received (empty for sources that are not HTTP):
    /// what a cache stores with the body, matches `Vary` against and updates from a 304.
    public var headerFields: [HeaderField]

    /// Metadata for a response from `url`; the defaults describe a plain 200 with no headers. What
    /// `headerFields`' caching headers (Cache-Control, Expires, Date, Age) say is read from them, as received now;
    /// without fields, what `cacheControl` says.
    public init(
        url: URL, statusCode: Int = 200, contentType: String? = nil, validators: Validators = .init(),
        cacheControl: String? = nil, expectedLength: Int64? = nil, headerFields: [HeaderField] = []
    ) {
        self.init(
            url: url, statusCode: statusCode, contentType: contentType, validators: validators,
            cacheControl: cacheControl, expectedLength: expectedLength,
            directives: Self.directives(headerFields, cacheControl: cacheControl),
            headerFields: headerFields)
    }

    /// What the fields' caching headers say, as received now; without fields, what `cacheControl` says.
    private static func directives(_ fields: [HeaderField], cacheControl: String?) -> CacheDirectives {
        if !fields.isEmpty { return CacheDirectives(fields: fields, receivedAt: Date()) }
        guard let cacheControl else { return .none }
        return CacheDirectives(cacheControl: cacheControl, expires: nil, date: nil, age: nil, receivedAt: Date())
    }

    /// The same, with the caching headers' meaning given (as the HTTP fetcher reads it, at the time it
    /// received the head).
    package init(
        url: URL, statusCode: Int = 200, contentType: String? = nil, validators: Validators = .init(),
        cacheControl: String? = nil, expectedLength: Int64? = nil, directives: CacheDirectives,
        headerFields: [HeaderField] = []
    ) {
        self.headerFields = headerFields
        self.url = url
        self.statusCode = statusCode
        self.contentType = contentType
        self.validators = validators
        self.cacheControl = cacheControl
        self.expectedLength = expectedLength
        self.directives = directives
    }
}

/// What a fetch produced: a body, or word that the cached copy is still current.
public enum FetchOutcome: Sendable {
    /// The whole body and what came with it.
    case data(Data, ResponseMetadata)
    /// 304: the cached copy is still current.
    case notModified(ResponseMetadata)
}
