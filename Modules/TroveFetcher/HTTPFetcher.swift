import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TroveCore

/// Fetches http and https URLs with AsyncHTTPClient, streaming the body so the byte limit and progress
/// apply as bytes arrive. The request's timeout is an idle timeout (nothing received for that long); its
/// deadline, when set, bounds the whole exchange, body and redirects included. With a `cookieStore` on the
/// request, every hop sends the store's cookies and stores the response's.
package struct HTTPFetcher: StreamingFetcher {
    /// Registered as "http".
    package let name = "http"
    /// Serves http and https.
    package let schemes: Set<String> = ["http", "https"]
    private let client: HTTPClient
    private let ownsClient: Bool
    /// Redirects followed before `tooManyRedirects`.
    private let redirectLimit: Int

    /// Redirects followed by default.
    package static let defaultRedirectLimit = 5

    /// Uses the process-wide shared client; redirects are followed up to 5 times.
    package init() {
        self.client = sharedHTTPClient
        self.ownsClient = false
        self.redirectLimit = Self.defaultRedirectLimit
    }

    /// Uses a client of the caller's; `shutdown()` shuts it down when `owned` is true. The fetcher follows
    /// up to `redirectLimit` redirects the client hands back (give the client `.disallow`, as
    /// `defaultClientConfiguration` does, so the fetcher sees every one).
    package init(client: HTTPClient, owned: Bool, redirectLimit: Int = HTTPFetcher.defaultRedirectLimit) {
        self.client = client
        self.ownsClient = owned
        self.redirectLimit = redirectLimit
    }

    /// A fresh client with Trove's defaults, shut down by this fetcher's `shutdown()`.
    package static func withOwnClient() -> HTTPFetcher {
        HTTPFetcher(
            client: HTTPClient(
                eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                configuration: defaultClientConfiguration),
            owned: true)
    }

    /// The client does not follow redirects: the fetcher does, up to `redirectLimit` (a loop ends at the
    /// limit too), because AsyncHTTPClient's delegate API fails a followed redirect whose 3xx response had a
    /// body over 3 KB. A failed connect fails the request at once instead of AsyncHTTPClient retrying it
    /// silently until the 10 s connect timeout — `withRetries` owns retrying, with backoff the caller
    /// controls and can see. AsyncHTTPClient's own tracing is off.
    package static var defaultClientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10)),
            decompression: .disabled)
        configuration.httpVersion = .automatic
        configuration.connectionPool.retryConnectionEstablishment = false
        // The pipeline's `trove.fetch` span is the client span and sends its `traceparent`; AsyncHTTPClient's
        // own would start a trace of its own (no parent on the event loop), show the URL with its query,
        // and replace that header.
        configuration.tracing.tracer = nil
        return configuration
    }

    /// Shuts the client down if this fetcher made it; a shared client is left to its owner.
    package func shutdown() async throws {
        if ownsClient { try await client.shutdown() }
    }

    /// Streams the body with progress, following redirects itself; statuses, timeouts and size limits throw `TroveError`s.
    package func fetch(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) async throws
        -> FetchOutcome
    {
        try await exchange(request, progress: progress).run().outcome
    }

    /// As `fetch(_:progress:)`, with the body going to `sink` as it arrives, never collected.
    package func fetchStreaming(
        _ request: FetchRequest, into sink: any FetchBodySink,
        progress: @escaping @Sendable (FetchProgress) -> Void
    ) async throws -> StreamedFetchOutcome {
        var exchange = try exchange(request, progress: progress)
        exchange.sink = sink
        return try await exchange.run().streamed
    }

    private func exchange(_ request: FetchRequest, progress: @escaping @Sendable (FetchProgress) -> Void) throws
        -> HTTPExchange
    {
        guard let host = request.url.host, !host.isEmpty else {
            throw TroveError.malformedURL(url: request.url.absoluteString, reason: "it has no host")
        }
        let hop = HTTPHop.on(client)
        return HTTPExchange(
            openHop: { _ in hop }, request: request, headers: Self.headers(of: request),
            cookieStore: request.cookieStore, redirectLimit: redirectLimit, progress: progress)
    }

    /// The request's own headers plus its validators as conditional headers.
    static func headers(of request: FetchRequest) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in request.headers { headers.replaceOrAdd(name: name, value: value) }
        if let etag = request.validators?.etag { headers.replaceOrAdd(name: "If-None-Match", value: etag) }
        if let date = request.validators?.lastModified {
            headers.replaceOrAdd(name: "If-Modified-Since", value: date)
        }
        return headers
    }
}
