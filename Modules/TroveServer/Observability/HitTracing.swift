import Tracing
import TroveCore

/// The server span of a result-cache hit answered on the event loop (`CachedResultAnswers`), which never
/// reaches the router and its `RequestTracingMiddleware`: made only when the process has a tracer, after
/// the answer is found, with the router's span's name and attributes (the method, the route, never the
/// path, and the status), a child of the client's `traceparent` when it sent one, and timed from when the
/// lookup began to when the answer was handed to the connection.
struct HitTracing: Sendable {
    let tracer: any Tracer

    /// Exports the span of one hit: `started` is when its lookup began.
    func record(method: String, path: String, status: Int, traceparent: String?, started: ContinuousClock.Instant) {
        var parent = ServiceContext.topLevel
        if let traceparent {
            tracer.extract(traceparent, into: &parent, using: TraceparentExtractor())
        }
        let ended = DefaultTracerClock.now
        let elapsed = UInt64(max(0, (ContinuousClock.now - started).nanoseconds))
        let start = DefaultTracerClock.Timestamp(
            nanosecondsSinceEpoch: ended.nanosecondsSinceEpoch - min(elapsed, ended.nanosecondsSinceEpoch))
        let route = ServerSpan.route(path)
        let span = tracer.startSpan(
            ServerSpan.name(method: method, route: route), context: parent, ofKind: .server, at: start)
        span.updateAttributes { attributes in
            attributes["http.request.method"] = method
            attributes["http.route"] = route
            attributes["http.response.status_code"] = status
        }
        span.end(at: ended)
    }
}

/// The name and route of a server span, shared by `RequestTracingMiddleware` and `HitTracing`.
enum ServerSpan {
    /// `GET /{signature}/{options}/{source}` and the like: the method and the route.
    static func name(method: String, route: String) -> String {
        method + " " + route
    }

    /// The route a path takes, as the router has them; never the source URL.
    static func route(_ path: String) -> String {
        switch path {
        case "/health", "/metrics", "/", "/favicon.ico", "/robots.txt": path
        case _ where path.hasPrefix("/info/"): "/info/{signature}/{options}/{source}"
        default: "/{signature}/{options}/{source}"
        }
    }
}

/// Reads the one header a hit keeps for tracing, for `Tracer.extract`.
private struct TraceparentExtractor: Extractor {
    func extract(key: String, from carrier: String) -> String? {
        key == "traceparent" ? carrier : nil
    }
}
