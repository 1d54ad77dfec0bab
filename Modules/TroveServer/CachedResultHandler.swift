import Foundation
import NIOCore
import NIOHTTP1

/// Answers result-cache hits on the connection's event loop, ahead of Hummingbird's async bridge, router
/// and middleware: a result already made costs a lookup and a write, not two hand-offs between threads.
///
/// It answers only a GET or HEAD of a path whose result is kept, over HTTP/1.1 keep-alive, and only while
/// no earlier request on the connection is still being answered behind it, so answers keep their order.
/// Everything else, and anything while the socket is not writable (a client that does not read), goes on
/// to Hummingbird untouched. `ProxyResponder` makes the answer, as it does for the router; the access log
/// and the metrics record it as their middleware would.
final class CachedResultHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let answers: CachedResultAnswers
    /// Requests passed on whose answers have not ended.
    private var passedOn = 0
    /// Whether the rest of a request answered here (its body and end) is still to be dropped.
    private var discarding = false
    /// Whether a part has gone on since the last read completed. When none has, the handlers behind have
    /// nothing to complete and are not told: a hit then costs no pass through Hummingbird's handlers.
    private var forwardedSinceReadComplete = false

    init(answers: CachedResultAnswers) {
        self.answers = answers
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case let .head(head):
            if passedOn == 0, context.channel.isWritable, let answer = answers.answer(to: head) {
                discarding = true
                context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
                if let body = answer.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                return
            }
            passedOn += 1
            discarding = false
        case .body:
            if discarding { return }
        case .end:
            if discarding {
                discarding = false
                return
            }
        }
        forwardedSinceReadComplete = true
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        guard forwardedSinceReadComplete else { return }
        forwardedSinceReadComplete = false
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Only answers from behind pass through here; this handler's own go on from its context.
        if case .end = unwrapOutboundIn(data) { passedOn = max(0, passedOn - 1) }
        context.write(data, promise: promise)
    }
}

/// What `CachedResultHandler` asks: the answer to a request head if its result is kept. Shared by every
/// connection.
struct CachedResultAnswers: Sendable {
    let responder: ProxyResponder
    /// Nil when access lines are not written.
    let accessLog: AccessLog?
    let date: ResponseDate

    /// The head and body to send, or nil when the request is not one this path answers or its result is
    /// not kept; the answer is counted in the metrics and the access log.
    func answer(to request: HTTPRequestHead) -> (head: HTTPResponseHead, body: ByteBuffer?)? {
        guard request.method == .GET || request.method == .HEAD, request.version == .http1_1, request.isKeepAlive,
            request.uri.hasPrefix("/")
        else { return nil }
        let started = ContinuousClock.now
        // Hummingbird's path: the target up to its query (found in the bytes: a Character search is slower).
        let uri = request.uri
        let path = uri.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(uri[..<$0]) } ?? uri
        let headers = request.headers
        let hints = responder.route.clientHints ? ClientHints(headers: headers) : nil
        let lookup = responder.resultLookup(path: path, accept: headers.combinedValue(named: "accept"), hints: hints)
        guard
            let answer = responder.cachedAnswer(
                for: lookup, conditions: AnswerConditions(headers), head: request.method == .HEAD)
        else { return nil }
        let status = Int(answer.status.code)
        let elapsed = ContinuousClock.now - started
        responder.metrics.answered(status: status, after: elapsed)
        responder.metrics.eventLoopHit()
        accessLog?.append(
            AccessLog.Record(
                time: Date(), method: request.method.rawValue, path: path, status: status,
                bytes: answer.contentLength ?? "0", elapsed: elapsed))
        return (answer.responseHead(date: date.text), answer.body)
    }
}
