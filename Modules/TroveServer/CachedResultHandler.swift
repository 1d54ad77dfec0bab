import Foundation
import NIOCore
import NIOHTTP1

/// Answers result-cache hits on the connection's event loop, ahead of Hummingbird's async bridge, router
/// and middleware: a result already made costs a lookup and a write, not two hand-offs between threads.
/// It sits after NIO's request decoder and sees the hits `ExpressHitHandler` left to the decoder (a read
/// that held more or less than one plain request, and everything after it on that connection).
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
    /// A read cycle of hits alone costs no pass through Hummingbird's handlers.
    private var forwarded = ForwardedReads()

    init(answers: CachedResultAnswers) {
        self.answers = answers
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch part {
        case let .head(head):
            if passedOn == 0, context.channel.isWritable, let request = HitRequest(head),
                let answer = answers.answer(to: request)
            {
                discarding = true
                context.write(wrapOutboundOut(.head(answer.responseHead(date: answers.date.text))), promise: nil)
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
        forwarded.pass(data, from: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        forwarded.completeRead(from: context)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Only answers from behind pass through here; this handler's own go on from its context.
        if case .end = unwrapOutboundIn(data) { passedOn = max(0, passedOn - 1) }
        context.write(data, promise: promise)
    }
}
