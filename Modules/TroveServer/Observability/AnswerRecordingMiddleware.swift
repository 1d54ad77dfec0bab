import Hummingbird

/// Records each answer the router makes with the `AnswerRecorder`, as the hits answered on the event loop
/// are: status and time in the metrics, one access line.
struct AnswerRecordingMiddleware<Context: RequestContext>: RouterMiddleware {
    let recorder: AnswerRecorder

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        recorder.record(
            method: request.method.rawValue, path: request.uri.path, status: response.status.code,
            bytes: response.headers[.contentLength] ?? "0", started: started)
        return response
    }
}
