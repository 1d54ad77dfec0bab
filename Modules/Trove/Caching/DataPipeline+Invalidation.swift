import Foundation
import TroveCore

// RFC 9111 §4.4: a successful answer to an unsafe method (POST, PUT, DELETE, ...) may have changed what
// the URL names, and what its Location and Content-Location name on the same origin: none of their
// stored responses may answer a request again without the origin. A request that opted in to caching its
// method (`cachesOtherMethods`: an app's cache of POST queries) is taken as the query it says it is.

extension DataRequest {
    /// Whether the method is safe (RFC 9110 §9.2.1): it asks for something without changing it.
    var isSafe: Bool { ["GET", "HEAD", "OPTIONS", "TRACE"].contains(method) }
}

extension DataPipeline {
    /// Invalidates, on disk, in the shared tier and in memory, every stored response for the request's
    /// URL (under the pipeline's key rule) and for the same-origin `Location` and `Content-Location`
    /// targets of its answer.
    func invalidate(after request: DataRequest, _ response: DataResponse) async {
        var sources = [CacheKey.source(ofStorageKey: request.cacheKey) ?? request.cacheKey]
        for name in ["location", "content-location"] {
            guard let value = response.headerFields.first(named: name),
                let target = URL(string: value, relativeTo: request.url)?.absoluteURL,
                Self.sameOrigin(target, request.url)
            else { continue }
            sources.append(configuration.cacheKeyRule.source(for: target))
        }
        for source in Set(sources) {
            await parts.cacheWriter.invalidate(source: source, in: memoryCache)
        }
    }

    /// Same scheme, host and port (RFC 6454's origin), so an answer cannot invalidate another site's copies.
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80) }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && port(a) == port(b)
    }
}
