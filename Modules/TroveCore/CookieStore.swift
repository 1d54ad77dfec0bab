import Foundation

/// Where the HTTP fetcher keeps cookies between requests: it asks for the `Cookie` header of every hop of
/// a fetch, redirects included, and hands over the `Set-Cookie` headers of every response, redirects and
/// errors included. `CookieJar` (TroveFetcher) is the built-in one, in memory.
///
/// Both methods are called on the HTTP client's event loop, so they must return quickly and never wait
/// on I/O or on an async task.
public protocol CookieStore: Sendable {
    /// The value of the `Cookie` header for a request to `url` now; nil when no stored cookie applies.
    func cookieHeader(for url: URL) -> String?

    /// Keeps the cookies that the `Set-Cookie` header values of a response from `url` set, and forgets those
    /// they expire.
    func storeCookies(fromSetCookieHeaders headers: [String], receivedFrom url: URL)
}
