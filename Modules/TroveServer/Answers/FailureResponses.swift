import Hummingbird

/// The proxy's short text answers: a failure's status and message with its caching rules, and plain texts
/// such as `/health`'s.
struct FailureResponses: Sendable {
    /// `Cache-Control` of client errors; 429 and 5xx answers are never cached.
    let errorCacheControl: String

    init(errorMaxAge: Int) {
        errorCacheControl = "public, max-age=\(errorMaxAge)"
    }

    /// A failure's answer. Client errors may be cached briefly; 429 and server errors are not cached. A
    /// refusal that will pass (429, the decode budget's 503) says when to come back in `Retry-After`.
    func response(for failure: ProxyFailure, head: Bool) -> Response {
        let cacheControl = failure.status == 429 || failure.status >= 500 ? "no-store" : errorCacheControl
        var response = Self.text(failure.status, failure.message + "\n", head: head, cacheControl: cacheControl)
        if let retryAfter = failure.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }

    /// A plain text answer.
    static func text(_ status: Int, _ body: String, head: Bool, cacheControl: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        // Error texts quote a little of the URL: never let a browser sniff them into something else.
        headers[.xContentTypeOptions] = "nosniff"
        headers[.cacheControl] = cacheControl
        headers[.contentLength] = String(body.utf8.count)
        return Response(
            status: .init(code: status), headers: headers,
            body: head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
