import Foundation
import Hummingbird

/// Puts one record per answered request into the `AccessLog` (method, path, status, bytes, time); the log
/// takes the signature out of the path, formats and writes on its own thread.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let log: AccessLog

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        log.append(
            AccessLog.Record(
                time: Date(), method: request.method.rawValue, path: request.uri.path,
                status: response.status.code, bytes: response.headers[.contentLength] ?? "0",
                elapsed: ContinuousClock.now - started))
        return response
    }
}
