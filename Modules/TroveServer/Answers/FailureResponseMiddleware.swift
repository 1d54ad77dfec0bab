import Hummingbird

/// Turns whatever a route throws into the proxy's short text answer (`ProxyFailure`): the status the
/// error means, a message that never quotes the origin, and the error's caching rules. Hummingbird's own
/// errors (an unknown path) keep their status.
struct FailureResponseMiddleware<Context: RequestContext>: RouterMiddleware {
    let responses: FailureResponses

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return responses.response(for: .notFound, head: request.method == .head)
        } catch {
            return responses.response(for: ProxyFailure(error), head: request.method == .head)
        }
    }
}
