import Hummingbird
import Tracing

/// The server's routes on Hummingbird's router: `/health`, `/metrics`, a few paths that are never images,
/// and every other path as an imgproxy URL. HEAD is answered as GET without the body. Middleware, outermost
/// first: the server span of each request (when the process has a tracer, `RequestTracingMiddleware`), the recording of each answer (metrics and access line, shared with the hits answered on the event
/// loop), the turning of errors into the proxy's text answers, and the GET-and-HEAD-only rule.
enum ProxyRouter {
    static func make(
        responder: ProxyResponder, recorder: AnswerRecorder, tracer: (any Tracer)?,
        isDraining: @escaping @Sendable () -> Bool
    ) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
        if let tracer { router.add(middleware: RequestTracingMiddleware(tracer: tracer)) }
        router.add(middleware: AnswerRecordingMiddleware(recorder: recorder))
        router.add(middleware: FailureResponseMiddleware(responses: responder.failures))
        router.add(middleware: AllowedMethodsMiddleware())
        // A draining server fails its health check first, so a balancer stops sending before it closes.
        router.get("/health") { request, _ in
            isDraining()
                ? FailureResponses.text(503, "draining\n", head: request.method == .head, cacheControl: "no-store")
                : FailureResponses.text(200, "ok\n", head: request.method == .head, cacheControl: "no-store")
        }
        router.get("/metrics") { request, _ in responder.metricsResponse(head: request.method == .head) }
        for path in ["/", "/favicon.ico", "/robots.txt"] {
            router.get(RouterPath(path)) { _, _ -> Response in throw ProxyFailure.notFound }
        }
        router.get("/info/**") { request, _ in
            await responder.info(
                path: String(request.uri.path.dropFirst("/info".count)), request: request,
                head: request.method == .head)
        }
        router.get("**") { request, _ in
            await responder.image(path: request.uri.path, request: request, head: request.method == .head)
        }
        return router
    }
}
