import Hummingbird

/// Answers 405 to anything but GET and HEAD, whatever the path: the proxy only reads.
struct AllowedMethodsMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.method == .get || request.method == .head else { throw ProxyFailure.methodNotAllowed }
        return try await next(request, context)
    }
}
