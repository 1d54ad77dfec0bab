import Foundation
import Hummingbird

/// Puts one record per answered request into the `AccessLog` (method, path without its signature,
/// status, bytes, time); the log formats and writes it on its own thread.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let log: AccessLog

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        log.append(
            AccessLog.Record(
                time: Date(), method: request.method.rawValue, path: ProxyResponder.redacted(request.uri.path),
                status: response.status.code, bytes: response.headers[.contentLength] ?? "0",
                elapsed: ContinuousClock.now - started))
        return response
    }
}
