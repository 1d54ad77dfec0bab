import NIOHTTP1

/// What `ConnectionHandler` asks, on the event loop: the answer to a request if its result is kept. Shared
/// by every connection; a class, so a connection holds one reference and a hit copies none of the
/// responder's many fields.
final class CachedResultAnswers: Sendable {
    let responder: ProxyResponder
    let recorder: AnswerRecorder
    let date: ResponseDate
    /// The server span of each hit, when the process traces; nil costs a hit one check.
    let tracing: HitTracing?

    init(responder: ProxyResponder, recorder: AnswerRecorder, date: ResponseDate, tracing: HitTracing?) {
        self.responder = responder
        self.recorder = recorder
        self.date = date
        self.tracing = tracing
    }

    /// The answer to send, or nil when its result is not kept (the request then goes to the router marked
    /// `HitRequest.missedField`, so the cache is asked once). An answer is recorded as the router's are.
    func answer(to request: HitRequest) -> ResultAnswer? {
        let started = ContinuousClock.now
        // Hummingbird's path: the target up to its query (found in the bytes: a Character search is slower).
        let target = request.target
        let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(target[..<$0]) } ?? target
        let hints = responder.route.clientHints(dprText: request.dprText, widthText: request.widthText)
        let lookup = responder.resultLookup(path: path, accept: request.accept, hints: hints)
        guard let answer = responder.cachedAnswer(for: lookup, conditions: request.conditions, head: request.isHead)
        else { return nil }
        responder.metrics.eventLoopHit(express: request.isExpress)
        recorder.record(
            method: request.isHead ? "HEAD" : "GET", path: path, status: Int(answer.status.code),
            bytes: answer.contentLength ?? "0", started: started)
        if let tracing {
            tracing.record(
                method: request.isHead ? "HEAD" : "GET", path: path, status: Int(answer.status.code),
                traceparent: request.traceparent, started: started)
        }
        return answer
    }
}

/// A GET or HEAD that the event loop may answer from the result cache: what its answer depends on.
struct HitRequest {
    /// The header `ConnectionHandler` adds to a request it looked up and found no result for, so the router
    /// does not ask again; it removes any a client sent.
    static let missedField = "trove-result-missed"

    var isHead: Bool
    /// The request target as sent: the path and any query.
    var target: String
    var accept: String?
    var conditions: AnswerConditions
    /// The client hints as sent, read only when the server reads hints.
    var dprText: String?
    var widthText: String?
    /// Whether it was read from the client's bytes rather than by NIO's decoder.
    var isExpress: Bool
    /// The client's W3C `traceparent`: read only when the process traces (`HitTracing`).
    var traceparent: String?

    /// A request NIO's decoder read, or nil when it is not a keep-alive HTTP/1.1 GET or HEAD of a path; its
    /// `traceparent` is read when `tracing`.
    init?(_ head: HTTPRequestHead, tracing: Bool) {
        guard head.method == .GET || head.method == .HEAD, head.version == .http1_1, head.isKeepAlive,
            head.uri.hasPrefix("/")
        else { return nil }
        let headers = head.headers
        isHead = head.method == .HEAD
        target = head.uri
        accept = headers.combinedValue(named: "accept")
        conditions = AnswerConditions(headers)
        dprText = headers.combinedValue(named: "Sec-CH-DPR") ?? headers.combinedValue(named: "DPR")
        widthText = headers.combinedValue(named: "Sec-CH-Width") ?? headers.combinedValue(named: "Width")
        isExpress = false
        if tracing { traceparent = headers.first(name: "traceparent") }
    }

    /// A request read straight from the client's bytes.
    init(_ head: PlainRequestHead) {
        isHead = head.isHead
        target = head.target
        accept = head.accept
        conditions = AnswerConditions(ifNoneMatch: head.ifNoneMatch, ifModifiedSince: head.ifModifiedSince)
        dprText = head.secCHDPR ?? head.dpr
        widthText = head.secCHWidth ?? head.width
        isExpress = true
        traceparent = head.traceparent
    }
}
