import Hummingbird

/// Counts every answer by status and records its time (`trove_serve_requests_total`,
/// `trove_serve_request_duration_seconds`).
struct ServerMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        metrics.answered(status: response.status.code, after: ContinuousClock.now - started)
        return response
    }
}
