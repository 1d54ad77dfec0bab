import HTTPTypes
import Hummingbird
import Tracing

/// The server span of each request the router answers, when the process has a tracer: a child of the
/// client's span when the request carries one (W3C `traceparent`, read by the tracer's propagator), made
/// current for the handler, so the pipeline's `trove.image` root is its child. Its attributes are the
/// method, the route (never the path, whose source may carry a token) and the status. Result-cache
/// hits answered on the event loop (`CachedResultAnswers`) never reach the router: `HitTracing` makes theirs.
struct RequestTracingMiddleware<Context: RequestContext>: RouterMiddleware {
    let tracer: any Tracer

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var parent = ServiceContext.current ?? .topLevel
        tracer.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
        let route = ServerSpan.route(request.uri.path)
        let span = tracer.startSpan(
            ServerSpan.name(method: request.method.rawValue, route: route), context: parent, ofKind: .server)
        defer { span.end() }
        do {
            let response = try await ServiceContext.withValue(span.context) { try await next(request, context) }
            // One write of the span's attributes (each write copies them).
            span.updateAttributes { attributes in
                attributes["http.request.method"] = request.method.rawValue
                attributes["http.route"] = route
                attributes["http.response.status_code"] = Int(response.status.code)
            }
            if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
            return response
        } catch {
            // The failure middleware inside turns errors into answers; what still escapes is recorded by kind.
            span.updateAttributes { attributes in
                attributes["http.request.method"] = request.method.rawValue
                attributes["http.route"] = route
                attributes["error.type"] = String(describing: type(of: error))
            }
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }
}

/// Reads header fields, for `Tracer.extract`.
private struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { carrier[$0] }
    }
}
